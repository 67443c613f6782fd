"""Agents of the other trust models (issue 30): local DP (:mod:`.local`) and the shuffle model (:mod:`.shuffle`),
on the shared noisy-report machinery of :mod:`.reports` and the randomizer / amplification accounting of
:mod:`dpbandit.privacy.local` and :mod:`dpbandit.privacy.shuffle`."""
