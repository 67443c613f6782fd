"""Classification data sets as bandits (issue 22 item 2, issue 24 item 4).

dpbandit/envs/classification.py, dpbandit/envs/datasets.py; the reward range of every environment (contract C1).
"""

from __future__ import annotations

import math
import warnings

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from gymnasium.utils.env_checker import check_env
from scipy import stats
from sklearn.datasets import load_iris, load_wine

from dpbandit import envs
from dpbandit.envs import ClassificationBanditEnv, ClassificationBanditVectorEnv, GLMBanditEnv, Link, replicate_seeds
from dpbandit.envs.datasets import BUNDLED, load_bundled, scale_features

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
BUNDLED_IDS = {"dpbandit/Digits-v0": "digits", "dpbandit/Wine-v0": "wine",
               "dpbandit/BreastCancer-v0": "breast_cancer", "dpbandit/Iris-v0": "iris",
               "dpbandit/ImbalancedClasses-v0": "imbalanced"}


def rollout(env, seed: int, policy_seed: int, steps: int) -> dict[str, np.ndarray]:
    """Step ``env`` with uniformly random actions; record what each round showed."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    out: dict[str, list] = {k: [] for k in ("obs", "mu", "user", "actions", "reward", "regret")}
    for _ in range(steps):
        a = int(rng.integers(env.action_space.n))
        out["obs"].append(obs)
        obs, reward, terminated, truncated, step_info = env.step(a)
        assert not terminated
        out["mu"].append(step_info["expected_rewards"])
        out["user"].append(step_info["user_id"])
        out["actions"].append(a)
        out["reward"].append(reward)
        out["regret"].append(step_info["regret"])
    return {k: np.array(v) for k, v in out.items()}


# ------------------------------------------------------------------------------ shapes, rewards
@pytest.mark.parametrize("env_id", sorted(BUNDLED_IDS))
def test_bundled_ids_have_the_documented_sizes(env_id: str) -> None:
    _, rows, dim, classes = BUNDLED[BUNDLED_IDS[env_id]]
    env = gym.make(env_id)
    core = env.unwrapped
    obs, info = env.reset(seed=0)
    assert (core.n_rows, core.dim, core.n_arms) == (rows, dim, classes)
    assert obs.shape == (dim,) and env.observation_space.shape == (dim,) and env.action_space.n == classes
    assert core.horizon == 10_000 and core.sampling == "iid" and core.context_model == "shared"
    assert info["expected_rewards"].shape == (classes,) and 0 <= info["user_id"] < rows
    assert set(np.unique(core.labels)) == set(range(classes))


def test_rewards_are_one_hot_of_the_true_class_and_obs_is_the_row() -> None:
    env = ClassificationBanditEnv(X_IRIS, Y_IRIS, horizon=300, preprocess=None, standardize=False)
    obs, info = env.reset(seed=1)
    for t in range(300):
        row = info["user_id"]
        np.testing.assert_array_equal(obs, X_IRIS[row])
        a = t % 3
        obs, reward, terminated, truncated, info = env.step(a)
        assert info["user_id"] == row  # step's info describes the round just played
        np.testing.assert_array_equal(info["expected_rewards"], np.eye(3)[Y_IRIS[row]])
        assert info["optimal_action"] == Y_IRIS[row]
        assert reward == float(a == Y_IRIS[row]) and info["regret"] == 1.0 - reward
        assert truncated == (t == 299) and not terminated
        if not truncated:
            info = env.unwrapped.current_round()[1]
    np.testing.assert_array_equal(obs, np.zeros(4))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_cost_sensitive_reward_matrix() -> None:
    R = np.array([[1.0, 0.5, -1.0], [0.0, 2.0, 0.0], [0.3, 0.3, 0.9]])
    env = ClassificationBanditEnv(X_IRIS, Y_IRIS, reward_matrix=R, horizon=200)
    assert env.reward_range == (-1.0, 2.0)
    run = rollout(env, 2, 0, 200)
    labels = Y_IRIS[run["user"]]
    np.testing.assert_array_equal(run["mu"], R[labels])
    np.testing.assert_array_equal(run["reward"], R[labels, run["actions"]])
    np.testing.assert_array_equal(run["regret"], R[labels].max(1) - R[labels, run["actions"]])


# ------------------------------------------------------------------------------ randomness
def test_same_seed_same_rounds_whatever_the_actions() -> None:
    env = gym.make("dpbandit/Wine-v0", horizon=120)
    first, second = rollout(env, 7, 0, 120), rollout(env, 7, 1, 120)
    assert not np.array_equal(first["actions"], second["actions"])
    for key in ("obs", "mu", "user"):
        np.testing.assert_array_equal(first[key], second[key])
    other = rollout(env, 8, 0, 120)
    assert not np.array_equal(first["user"], other["user"])


@pytest.mark.parametrize("sampling", ["iid", "pass"])
def test_draw_rounds_is_bit_identical_to_stepping_for_any_chunking(sampling: str) -> None:
    kwargs = dict(dataset="wine", sampling=sampling, horizon=150)
    stepped = rollout(ClassificationBanditEnv(**kwargs), 11, 0, 150)
    for chunk_rounds in (None, 1, 7, 150):
        env = ClassificationBanditEnv(**kwargs, chunk_rounds=chunk_rounds)
        obs, info = env.reset(seed=11)
        block = envs.RoundBlock.concatenate([env.draw_rounds(m) for m in (1, 2, 13, 134)])
        assert block.user_ids.dtype == np.int64 and block.user_ids.shape == (150,)
        np.testing.assert_array_equal(block.user_ids, stepped["user"])
        np.testing.assert_array_equal(block.observations, stepped["obs"])
        np.testing.assert_array_equal(block.observations[0], obs)
        np.testing.assert_array_equal(block.expected_rewards, stepped["mu"])
        np.testing.assert_array_equal(block.rewards, block.expected_rewards)
        np.testing.assert_array_equal(block.rewards[np.arange(150), stepped["actions"]], stepped["reward"])
        assert info["user_id"] == block.user_ids[0]


def test_step_and_draw_rounds_can_be_mixed() -> None:
    ref = ClassificationBanditEnv(dataset="iris", horizon=40, chunk_rounds=4)
    ref.reset(seed=5)
    whole = ref.draw_rounds(40)
    env = ClassificationBanditEnv(dataset="iris", horizon=40, chunk_rounds=4)
    env.reset(seed=5)
    env.step(0)
    middle = env.draw_rounds(10)
    obs, info = env.current_round()
    np.testing.assert_array_equal(middle.user_ids, whole.user_ids[1:11])
    np.testing.assert_array_equal(obs, whole.observations[11])
    assert info["user_id"] == whole.user_ids[11]
    assert env.step(1)[1] == whole.rewards[11, 1]


def test_iid_draws_rows_uniformly_with_replacement() -> None:
    env = ClassificationBanditEnv(X_IRIS, Y_IRIS, horizon=15_000)
    env.reset(seed=3)
    users = env.draw_rounds(15_000).user_ids
    counts = np.bincount(users, minlength=150)
    assert counts.max() > 1  # rows repeat: a row is one person met in several rounds
    assert stats.chisquare(counts).pvalue > 1e-4  # uniform over the 150 rows


def test_pass_visits_every_row_once_in_a_random_order() -> None:
    env = ClassificationBanditEnv(X_IRIS, Y_IRIS, sampling="pass")
    assert env.horizon == 150
    obs, _ = env.reset(seed=4)
    block = env.draw_rounds(150)
    np.testing.assert_array_equal(np.sort(block.user_ids), np.arange(150))
    assert not np.array_equal(block.user_ids, np.arange(150))
    np.testing.assert_array_equal(block.observations, env.features[block.user_ids])
    env.reset(seed=4)
    first = env.draw_rounds(150).user_ids
    env.reset()  # a new episode continues the root generator: a new order
    assert not np.array_equal(env.draw_rounds(150).user_ids, first)
    short = ClassificationBanditEnv(X_IRIS, Y_IRIS, sampling="pass", horizon=20)
    short.reset(seed=4)
    np.testing.assert_array_equal(short.draw_rounds(20).user_ids, first[:20])


# ------------------------------------------------------------------------------ preprocessing
def test_default_preprocessing_standardises_then_centres_features_and_scales_rows_to_unit_norm() -> None:
    X, y = load_wine(return_X_y=True)
    env = ClassificationBanditEnv(X, y, horizon=50)
    standardised = (X - X.mean(axis=0)) / X.std(axis=0)
    centred = standardised - standardised.mean(axis=0)
    np.testing.assert_allclose(np.linalg.norm(env.features, axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(env.features * np.linalg.norm(centred, axis=1)[:, None], centred, atol=1e-9)
    assert env.unwrapped.params["scaling"] == "fitted"
    obs, info = env.reset(seed=0)
    assert math.isclose(np.linalg.norm(obs), 1.0, rel_tol=1e-12)
    np.testing.assert_array_equal(obs, env.features[info["user_id"]])
    assert obs in env.observation_space and np.zeros(13) in env.observation_space


def test_a_row_equal_to_the_mean_stays_zero_and_no_scaling_no_preprocess_keeps_raw_rows() -> None:
    X = np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 1.0], [1.0, 3.0], [1.0, -1.0]])
    y = np.array([0, 1, 0, 1, 0])
    env = ClassificationBanditEnv(X, y, horizon=10)
    np.testing.assert_array_equal(env.features[2], [0.0, 0.0])  # row 2 is the mean (1, 1)
    np.testing.assert_allclose(np.linalg.norm(env.features[[0, 1, 3, 4]], axis=1), 1.0)
    raw = ClassificationBanditEnv(X, y, horizon=10, preprocess=None, standardize=False)
    np.testing.assert_array_equal(raw.features, X)
    assert raw.params["scaling"] == "none"
    obs, info = raw.reset(seed=0)
    np.testing.assert_array_equal(obs, X[info["user_id"]])
    assert raw.observation_space.low.min() == -1.0 and raw.observation_space.high.max() == 3.0


def test_the_imbalanced_data_set_is_issue_29s_make_classification_call() -> None:
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=5000, n_features=12, n_informative=6, n_redundant=2, n_classes=4,
                               weights=[.55, .25, .15, .05], random_state=7)
    got_X, got_y = load_bundled("imbalanced")
    np.testing.assert_array_equal(got_X, X)
    np.testing.assert_array_equal(got_y, y)
    assert np.bincount(y).max() / y.size == pytest.approx(0.5468)  # the majority share


# ------------------------------------------------------------------------------ feature scaling (issue 29)
@pytest.mark.parametrize("dataset", sorted(BUNDLED))
def test_standardisation_gives_every_feature_mean_0_and_std_1_and_constant_features_0(dataset: str) -> None:
    X, _ = load_bundled(dataset)
    scaled = scale_features(X)
    constant = X.max(axis=0) == X.min(axis=0)
    assert constant.any() == (dataset == "digits")  # digits has blank pixels
    np.testing.assert_allclose(scaled.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(scaled.std(axis=0)[~constant], 1.0, rtol=1e-12)
    np.testing.assert_array_equal(scaled[:, constant], 0.0)
    env = gym.make({v: k for k, v in BUNDLED_IDS.items()}[dataset], preprocess=None)
    np.testing.assert_array_equal(env.unwrapped.features, scaled)  # the env applies exactly this


def test_standardize_false_reproduces_the_preprocessing_before_issue_29_bit_for_bit(tmp_path) -> None:
    X, y = load_wine(return_X_y=True)
    centred = X - X.mean(axis=0)
    before = centred / np.sqrt((centred * centred).sum(axis=1))[:, None]  # issue 22's "center-l2"
    for env in (ClassificationBanditEnv(X, y, standardize=False),
                gym.make("dpbandit/Wine-v0", standardize=False).unwrapped,
                gym.make("dpbandit/Classification-v0", path=_csv(tmp_path, pd.DataFrame(X).assign(c=y)),
                         label="c", standardize=False).unwrapped):
        np.testing.assert_array_equal(env.features, before)
    default = gym.make("dpbandit/Wine-v0").unwrapped.features
    assert np.abs(default - before).max() > 0.1  # the default changed


def test_public_feature_scale_and_bounds_are_used_exactly() -> None:
    X, y = load_wine(return_X_y=True)
    rng = np.random.default_rng(3)
    mean, std = rng.normal(size=13), rng.uniform(0.5, 2.0, size=13)  # deliberately not the data's
    env = ClassificationBanditEnv(X, y, feature_scale=(mean, std), preprocess=None)
    np.testing.assert_array_equal(env.features, (X - mean) / std)
    assert env.params["scaling"] == "feature_scale"
    low, high = X.min(axis=0) - 1.0, X.max(axis=0) + 2.0
    bounded = ClassificationBanditEnv(X, y, feature_bounds=(low, high), preprocess=None)
    np.testing.assert_allclose(bounded.features, 2.0 * (X - low) / (high - low) - 1.0, rtol=0, atol=0)
    assert bounded.features.min() >= -1.0 and bounded.features.max() <= 1.0
    exact = ClassificationBanditEnv(X, y, feature_bounds=(X.min(axis=0), X.max(axis=0)), preprocess=None)
    np.testing.assert_allclose(exact.features.min(axis=0), -1.0, atol=1e-15)
    np.testing.assert_allclose(exact.features.max(axis=0), 1.0, atol=1e-15)
    warning = r"feature_scale= gives public.*preprocess='center-l2'.*preprocess=None"
    with pytest.warns(UserWarning, match=warning):
        with_rows = ClassificationBanditEnv(X, y, feature_scale=(mean, std))  # then centred unit-norm rows
    centred = (X - mean) / std - ((X - mean) / std).mean(axis=0)
    np.testing.assert_allclose(with_rows.features, centred / np.linalg.norm(centred, axis=1)[:, None],
                               atol=1e-12)


def test_bad_feature_scaling_is_refused_naming_the_parameter() -> None:
    d = X_IRIS.shape[1]
    ones, zeros = np.ones(d), np.zeros(d)
    cases = [
        (dict(feature_scale=(zeros, np.ones(3))), r"feature_scale\[1\] of shape \(4,\), got \(3,\)"),
        (dict(feature_scale=(zeros, np.r_[1.0, 0.0, 1.0, 1.0])),
         r"feature_scale\[1\] \(std\) > 0.*feature 1"),
        (dict(feature_scale=(np.r_[np.nan, 0, 0, 0], ones)), r"feature_scale\[0\] to be finite"),
        (dict(feature_scale=zeros), "feature_scale to be a pair"),
        (dict(feature_bounds=(ones, ones)), r"feature_bounds high > low.*feature 0"),
        (dict(feature_bounds=(zeros, np.r_[1.0, 1.0, 1.0, np.inf])), r"feature_bounds\[1\] to be finite"),
        (dict(feature_bounds=(zeros, ones)),
         r"inside feature_bounds.*row 0, feature 0 \(5\.1 not in \[0\.0, 1\.0\]\)"),
        (dict(feature_scale=(zeros, ones), feature_bounds=(zeros, ones)), "at most one of feature_scale and"),
        (dict(feature_scale=(zeros, ones), standardize=False),
         "feature_scale= .*contradicts standardize=False"),
        (dict(standardize="no"), "standardize to be True or False"),
    ]
    for options, message in cases:
        with pytest.raises((ValueError, TypeError), match=message):
            ClassificationBanditEnv(X_IRIS, Y_IRIS, horizon=10, **options)
    with pytest.raises(ValueError, match="feature_bounds"):
        gym.make("dpbandit/Iris-v0", feature_bounds=(zeros, ones))


# ------------------------------------------------------------------------------ data sources
def test_csv_source_equals_array_source(tmp_path) -> None:
    path = tmp_path / "iris.csv"
    frame = pd.DataFrame(X_IRIS, columns=["a", "b", "c", "d"]).assign(species=Y_IRIS)
    frame.to_csv(path, index=False)
    from_csv = gym.make("dpbandit/Classification-v0", path=str(path), label="species", horizon=60)
    from_arrays = gym.make("dpbandit/Classification-v0", X=X_IRIS, y=Y_IRIS, horizon=60)
    assert from_csv.unwrapped.params["source"] == str(path)
    for env in (from_csv, from_arrays):
        env.reset(seed=9)
    a, b = from_csv.unwrapped.draw_rounds(60), from_arrays.unwrapped.draw_rounds(60)
    for got, want in zip(a, b, strict=True):
        np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------------------ bad input
def _csv(tmp_path, frame: pd.DataFrame) -> str:
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return str(path)


BAD_ARRAYS = {
    "string labels": (X_IRIS, np.array(["setosa", "versicolor", "virginica"])[Y_IRIS],
                      r"integer class labels 0\.\.K-1.*numpy\.unique\(y, return_inverse=True\)"),
    "labels 1..3": (X_IRIS, Y_IRIS + 1, r"0\.\.K-1 with every class present.*numpy\.unique"),
    "a class absent": (X_IRIS, np.where(Y_IRIS == 1, 2, Y_IRIS), r"classes \[1\] are absent"),
    "negative labels": (X_IRIS, Y_IRIS - 1, r"got labels \[-1, 0, 1\]"),
    "fractional labels": (X_IRIS, Y_IRIS + 0.5, r"non-integer or NaN"),
    "one class": (X_IRIS, np.zeros(150, dtype=int), r"at least 2 classes.*got one class 0"),
    "NaN feature": (np.where(np.arange(600).reshape(150, 4) == 42, np.nan, X_IRIS), Y_IRIS,
                    r"X \(the features\) to be finite: 1 entries.*row 10, column 2 \(nan\)"),
    "infinite feature": (np.where(np.arange(600).reshape(150, 4) == 5, np.inf, X_IRIS), Y_IRIS,
                         r"finite.*row 1, column 1 \(inf\)"),
    "length mismatch": (X_IRIS, Y_IRIS[:-1], r"X has 150 rows, y has 149 labels"),
    "1-D X": (X_IRIS[:, 0], Y_IRIS, r"X to be a 2-D array"),
}


@pytest.mark.parametrize("case", sorted(BAD_ARRAYS))
def test_bad_arrays_are_rejected_naming_the_problem(case: str) -> None:
    X, y, message = BAD_ARRAYS[case]
    with pytest.raises(ValueError, match=message):
        gym.make("dpbandit/Classification-v0", X=X, y=y)


def test_bad_sources_and_options_are_rejected(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"needs data: pass X=.*path=.*label=.*--env-kwarg path=.*Digits-v0"):
        gym.make("dpbandit/Classification-v0")
    with pytest.raises(ValueError, match="got only X"):
        ClassificationBanditEnv(X_IRIS)
    with pytest.raises(ValueError, match="label='species' names the label column of a CSV file"):
        ClassificationBanditEnv(X_IRIS, Y_IRIS, label="species")
    with pytest.raises(ValueError, match="one data source, got X/y and dataset"):
        gym.make("dpbandit/Iris-v0", X=X_IRIS, y=Y_IRIS)
    with pytest.raises(ValueError, match="dataset"):
        ClassificationBanditEnv(dataset="mnist")
    with pytest.raises(ValueError, match=r"horizon <= 150.*sampling='pass'.*horizon=151.*sampling='iid'"):
        gym.make("dpbandit/Iris-v0", sampling="pass", horizon=151)
    with pytest.raises(ValueError, match="sampling"):
        gym.make("dpbandit/Iris-v0", sampling="bootstrap")
    with pytest.raises(ValueError, match="preprocess"):
        gym.make("dpbandit/Iris-v0", preprocess="standardise")
    with pytest.raises(ValueError, match=r"reward_matrix of shape \(3, 3\), got \(2, 2\)"):
        gym.make("dpbandit/Iris-v0", reward_matrix=np.eye(2))
    with pytest.raises(ValueError, match="Expected reward_matrix to be finite"):
        gym.make("dpbandit/Iris-v0", reward_matrix=np.diag([1.0, np.nan, 1.0]))
    with pytest.raises(ValueError, match="horizon"):
        gym.make("dpbandit/Iris-v0", horizon=0)
    frame = pd.DataFrame(X_IRIS, columns=["a", "b", "c", "d"]).assign(species=Y_IRIS)
    path = _csv(tmp_path, frame)
    columns = r"\['a', 'b', 'c', 'd', 'species'\]"
    with pytest.raises(ValueError, match=r"no label column 'label'; its columns are " + columns):
        gym.make("dpbandit/Classification-v0", path=path, label="label")
    with pytest.raises(ValueError, match="Expected label="):
        gym.make("dpbandit/Classification-v0", path=path)
    with pytest.raises(FileNotFoundError, match="path='nowhere.csv'"):
        gym.make("dpbandit/Classification-v0", path="nowhere.csv", label="species")
    with pytest.raises(ValueError, match=r"columns \['colour'\] are not numeric"):
        coloured = _csv(tmp_path, frame.assign(colour="red"))
        gym.make("dpbandit/Classification-v0", path=coloured, label="species")
    missing = frame.astype({"b": float})
    missing.loc[3, "b"] = np.nan
    with pytest.raises(ValueError, match=r"row 3, column 'b' \(nan\)"):
        gym.make("dpbandit/Classification-v0", path=_csv(tmp_path, missing), label="species")
    with pytest.raises(ValueError, match=r"integer class labels.*e\.g\. 'setosa'"):
        named = frame.assign(species=np.array(["setosa", "versicolor", "virginica"])[Y_IRIS])
        gym.make("dpbandit/Classification-v0", path=_csv(tmp_path, named), label="species")


# ------------------------------------------------------------------------------ Gymnasium, vector
@pytest.mark.parametrize("standardize", [True, False])
@pytest.mark.parametrize("preprocess", ["center-l2", None])
@pytest.mark.parametrize("env_id", sorted(envs.CLASSIFICATION_IDS))
def test_check_env_passes_on_every_classification_id(
    env_id: str, preprocess: str | None, standardize: bool
) -> None:
    data = dict(X=X_IRIS, y=Y_IRIS) if env_id == "dpbandit/Classification-v0" else {}
    env = gym.make(env_id, horizon=50, preprocess=preprocess, standardize=standardize, **data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("sampling", ["iid", "pass"])
def test_vector_replicates_equal_scalar_envs_seeded_with_replicate_seeds(sampling: str) -> None:
    n, horizon = 5, 30
    vec = gym.make_vec("dpbandit/Wine-v0", num_envs=n, vectorization_mode="vector_entry_point",
                       horizon=horizon, sampling=sampling)
    assert isinstance(vec.unwrapped, ClassificationBanditVectorEnv)
    actions = np.random.default_rng(0).integers(3, size=(horizon, n))
    obs, info = vec.reset(seed=123)
    v_obs, v_user, v_rew, v_reg = [obs], [info["user_id"]], [], []
    for t in range(horizon):
        obs, reward, terminated, truncated, info = vec.step(actions[t])
        assert not terminated.any() and truncated.all() == (t == horizon - 1)
        assert info["_user_id"].all()
        v_obs.append(obs)
        v_user.append(info["user_id"])
        v_rew.append(reward)
        v_reg.append(info["regret"])
    v_obs, v_user, v_rew, v_reg = (np.stack(x, axis=1) for x in (v_obs, v_user, v_rew, v_reg))
    np.testing.assert_array_equal(v_user[:, 0], v_user[:, 1])  # reset info and step info: same round
    for i, seed in enumerate(replicate_seeds(123, n)):
        single = gym.make("dpbandit/Wine-v0", horizon=horizon, sampling=sampling)
        obs, info = single.reset(seed=seed)
        np.testing.assert_array_equal(obs, v_obs[i, 0])
        assert info["user_id"] == v_user[i, 0]
        for t in range(horizon):
            obs, reward, _, _, info = single.step(int(actions[t, i]))
            np.testing.assert_array_equal(obs, v_obs[i, t + 1])
            assert info["user_id"] == v_user[i, t + 1]
            assert reward == v_rew[i, t] and info["regret"] == v_reg[i, t]
    vec.reset(seed=123)
    block = vec.unwrapped.draw_rounds(horizon)
    assert block.user_ids.shape == (n, horizon) and block.observations.shape == (n, horizon, 13)
    np.testing.assert_array_equal(block.user_ids, v_user[:, 1:])


def test_vector_autoreset_starts_a_new_episode() -> None:
    vec = ClassificationBanditVectorEnv(2, dataset="iris", horizon=3, sampling="pass")
    _, info = vec.reset(seed=0)
    first = [info["user_id"]]
    for _ in range(3):
        _, _, _, truncated, info = vec.step(np.zeros(2, dtype=int))
        first.append(info["user_id"])
    assert truncated.all()
    obs, rewards, terminated, truncated, info = vec.step(np.zeros(2, dtype=int))  # actions ignored
    assert not truncated.any() and not terminated.any() and np.all(rewards == 0)
    second = np.concatenate([info["user_id"][:, None], vec.draw_rounds(2).user_ids], axis=1)
    np.testing.assert_array_equal(obs, vec.features[info["user_id"]])
    assert not np.array_equal(second, np.stack(first[1:], axis=1))


def test_render_shows_the_user() -> None:
    env = gym.make("dpbandit/Iris-v0", horizon=5, render_mode="ansi")
    env.reset(seed=0)
    _, _, _, _, info = env.step(0)
    nxt = env.unwrapped.current_round()[1]["user_id"]
    text = env.render()
    assert "round 1/5: played arm 0" in text and f"(user {nxt})" in text


# ------------------------------------------------------------------------------ reward range (C1)
EXPECTED_RANGES = {
    "dpbandit/GLMBandit-v0": (-math.inf, math.inf),
    "dpbandit/LinearBandit-v0": (-math.inf, math.inf),
    "dpbandit/LogisticBandit-v0": (0.0, 1.0),
    "dpbandit/PoissonBandit-v0": (0.0, math.inf),
    "dpbandit/PerArmLinearBandit-v0": (-math.inf, math.inf),
    "dpbandit/HDBSection54-v0": (-math.inf, math.inf),
    "dpbandit/Classification-v0": (0.0, 1.0),
    "dpbandit/Digits-v0": (0.0, 1.0),
    "dpbandit/Wine-v0": (0.0, 1.0),
    "dpbandit/BreastCancer-v0": (0.0, 1.0),
    "dpbandit/Iris-v0": (0.0, 1.0),
    "dpbandit/ImbalancedClasses-v0": (0.0, 1.0),
    "dpbandit/ChowdhuryZhou-v0": (0.0, 1.0),  # Bernoulli rewards (issue 30)
    "dpbandit/BernoulliMAB-v0": (0.0, 1.0),  # Bernoulli rewards (issue 40)
    "dpbandit/BernoulliMAB5-v0": (0.0, 1.0),
    "dpbandit/LDPGLMUnitCircle-v0": (-math.inf, math.inf),  # identity link, noiseless (issue 37)
}


def test_every_registered_id_declares_its_reward_range() -> None:
    ids = sorted(env_id for env_id in gym.registry if env_id.startswith("dpbandit/"))
    assert sorted(EXPECTED_RANGES) == ids
    for env_id in ids:
        data = dict(X=X_IRIS, y=Y_IRIS) if env_id == "dpbandit/Classification-v0" else {}
        env = gym.make(env_id, horizon=400, **data)
        low, high = env.unwrapped.reward_range
        assert (low, high) == EXPECTED_RANGES[env_id] and isinstance(low, float) and isinstance(high, float)
        vec = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point", horizon=5, **data)
        assert vec.unwrapped.reward_range == (low, high)
        env.reset(seed=0)
        if hasattr(env.unwrapped, "draw_rounds"):
            rewards = env.unwrapped.draw_rounds(400).rewards
        else:  # an env outside the block machinery (ChowdhuryZhou-v0, BernoulliMAB-v0): its played rewards
            rewards = np.array([env.step(t % env.action_space.n)[1] for t in range(400)])
        assert rewards.min() >= low and rewards.max() <= high


TANH = Link(np.tanh, lambda z: 1 - np.tanh(z) ** 2, name="tanh")  # a custom link without a mean range


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (dict(link="identity"), (-math.inf, math.inf)),
        (dict(link="logistic", noise="gaussian"), (-math.inf, math.inf)),
        (dict(link="exponential", noise="gaussian", noise_std=0.2), (-math.inf, math.inf)),
        (dict(link="logistic"), (0.0, 1.0)),
        (dict(link="exponential"), (0.0, math.inf)),
        (dict(link="identity", noise_std=0.0), (-math.inf, math.inf)),
        (dict(link="logistic", noise="gaussian", noise_std=0.0), (0.0, 1.0)),
        (dict(link="exponential", noise="gaussian", noise_std=0.0), (0.0, math.inf)),
        (dict(link=TANH, noise_std=0.0), None),
        (dict(link=Link(TANH.mean, TANH.derivative, mean_range=(-1, 1)), noise_std=0.0), (-1.0, 1.0)),
        (dict(link=TANH, noise_std=0.1), (-math.inf, math.inf)),
        (dict(link=Link(lambda z: 1 / (1 + np.exp(-z)), lambda z: z, distribution="bernoulli")), (0.0, 1.0)),
    ],
)
def test_glm_reward_range_of_every_link_and_noise(options: dict, expected) -> None:
    env = GLMBanditEnv(3, 4, 200, **options)
    assert env.reward_range == expected
    if expected is not None:
        env.reset(seed=1)
        rewards = env.draw_rounds(200).rewards
        assert rewards.min() >= expected[0] and rewards.max() <= expected[1]


def test_link_mean_range_is_validated() -> None:
    with pytest.raises(ValueError, match="mean_range"):
        Link(np.tanh, np.tanh, mean_range=(1.0, -1.0))
