"""Make the tests' shared reference modules (``privacy_reference``) importable under
``--import-mode=importlib``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
