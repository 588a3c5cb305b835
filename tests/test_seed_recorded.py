"""A call that splits the rows (validate=) or permutes candidates (order="random") without seed=
draws a seed, records it as res.seed and prints it in the summary; passing the printed seed back
repeats the split and the orders exactly."""
import re

import numpy as np
import pandas as pd
import pytest

import streamreg as sr


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(4)
    d = pd.DataFrame(rng.normal(size=(120, 8)), columns=[f"x{i}" for i in range(8)])
    d["y"] = d["x2"] - d["x5"] + rng.normal(size=120)
    return d


def printed_seed(fit) -> int:
    """The seed as the summary prints it (the number a user would copy)."""
    found = re.search(r"Seed:\s+(\d+) \(drawn; seed=(\d+) repeats", str(fit.summary()))
    assert found and found.group(1) == found.group(2), str(fit.summary())
    return int(found.group(1))


def test_a_drawn_seed_repeats_the_split(frame):
    first = sr.streamreg("y ~ stream(x*)", frame, validate=0.4)
    seed = printed_seed(first)
    assert seed == first.seed and isinstance(first.seed, int)
    again = sr.streamreg("y ~ stream(x*)", frame, validate=0.4, seed=seed)
    pd.testing.assert_index_equal(again.selected_model.train.index, first.selected_model.train.index)
    pd.testing.assert_frame_equal(again.history, first.history)
    pd.testing.assert_series_equal(again.params, first.params)
    assert again.seed == seed
    assert f"Seed:                {seed} (given; it seeds the validate= split)" in str(again.summary())
    # another call without seed= draws another seed (two equal 32-bit draws: odds 2**-32)
    other = sr.streamreg("y ~ stream(x*)", frame, validate=0.4)
    assert other.seed != first.seed


def test_a_drawn_seed_repeats_random_orders(frame):
    formula = "y ~ stream(x0, x1, x2, x3, order='random') + squares(x4, x5, x6, order='random')"
    first = sr.streamreg(formula, frame)
    seed = printed_seed(first)
    assert "repeats random orders" in str(first.summary())
    again = sr.streamreg(formula, frame, seed=seed)
    pd.testing.assert_frame_equal(again.history, first.history)
    assert "Seed:" in str(first.summary2())  # summary2 prints the same facts


def test_select_records_the_seed_of_its_random_order(frame):
    x, y = frame[[f"x{i}" for i in range(8)]].to_numpy(), frame["y"].to_numpy()
    first = sr.select(y, {"a": x[:, :4], "b": x[:, 4:]}, order="random")
    again = sr.select(y, {"a": x[:, :4], "b": x[:, 4:]}, order="random", seed=printed_seed(first))
    pd.testing.assert_frame_equal(again.history, first.history)


def test_nothing_random_records_no_seed(frame):
    for fit in (sr.streamreg("y ~ stream(x*)", frame), sr.streamreg("y ~ stream(x*)", frame, seed=5),
                sr.streamreg("y ~ stream(x*, order='random', seed=1)", frame),  # the item's own seed
                sr.streamreg("y ~ stream(x*)", frame, validate=frame.index < 40)):  # a mask: no random split
        assert fit.seed is None
        assert "Seed:" not in str(fit.summary())


def test_drawing_leaves_numpy_s_global_state_alone(frame):
    np.random.seed(11)
    before = np.random.get_state()[1].copy()
    sr.streamreg("y ~ stream(x*, order='random')", frame, validate=0.3)
    np.testing.assert_array_equal(np.random.get_state()[1], before)


def test_a_generator_seed_is_recorded_as_given(frame):
    rng = np.random.default_rng(3)
    fit = sr.streamreg("y ~ stream(x*)", frame, validate=0.3, seed=rng)
    assert fit.seed is rng
    assert "Seed:                a numpy Generator (given; it seeds the validate= split)" in str(fit.summary())


def test_the_seed_of_drawn_decoys_is_recorded_and_repeats_them(frame):
    """Without seed=, the decoys are drawn from the recorded seed; seed=res.seed draws the same ones."""
    from streamreg.streams.arrays import MatrixStream
    from streamreg.streams.decoys import decoy_sources

    x, y = frame[[f"x{i}" for i in range(8)]].to_numpy(), frame["y"].to_numpy()
    first = sr.select(y, x, decoys="permuted", passes=1)
    seed = printed_seed(first)
    assert seed == first.seed == first.decoys.options.seed
    assert f"(drawn; seed={seed} repeats the decoys)" in str(first.summary())
    # the decoys of stream 0 are its rows in the order default_rng([seed, 0]) draws
    source = decoy_sources([MatrixStream("x", x, [f"x{i}" for i in range(8)])], first.decoys.options, len(y))[0]
    np.testing.assert_array_equal(source.order, np.random.default_rng([seed, 0]).permutation(len(y)))
    again = sr.select(y, x, decoys="permuted", passes=1, seed=seed)
    assert again.seed == seed and again.decoys.options.seed == seed
    pd.testing.assert_frame_equal(again.decoys.table, first.decoys.table)
    pd.testing.assert_frame_equal(again.history.drop(columns="time", errors="ignore"),
                                  first.history.drop(columns="time", errors="ignore"))


def test_one_seed_draws_the_split_and_the_decoys(frame):
    first = sr.streamreg("y ~ stream(x*)", frame, validate=0.4, decoys="knockoff")
    seed = printed_seed(first)
    assert first.decoys.options.seed == seed
    assert f"seed={seed} repeats the validate= split and the decoys" in " ".join(str(first.summary()).split())
    again = sr.streamreg("y ~ stream(x*)", frame, validate=0.4, decoys="knockoff", seed=seed)
    pd.testing.assert_index_equal(again.selected_model.train.index, first.selected_model.train.index)
    pd.testing.assert_frame_equal(again.decoys.table, first.decoys.table)


def test_a_given_decoy_matrix_draws_nothing(frame):
    x, y = frame[[f"x{i}" for i in range(8)]].to_numpy(), frame["y"].to_numpy()
    decoys = np.random.default_rng(0).normal(size=x.shape)
    fit = sr.select(y, x, decoys=decoys)
    assert fit.seed is None and "Seed:" not in str(fit.summary())
