"""The top-level ``seed=`` (and the CLI's ``--seed``) seeds ``order='random'``
in formulas, as it does in ``select()``; a stream's own ``seed=`` wins."""
import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.cli import main
from streamreg.streams.ordering import item_seed

FORMULA = "y ~ stream(x0, x1, x2, x3, x4, x5, order='random') + stream(z0, z1, z2, z3, z4, z5, order=random)"


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(3)
    n = 80
    d = pd.DataFrame(rng.normal(size=(n, 12)), columns=[f"x{i}" for i in range(6)] + [f"z{i}" for i in range(6)])
    d["y"] = d["x2"] - d["z4"] + rng.normal(size=n)
    return d


def offered(fit, stream=None):
    h = fit.history
    if stream is not None:
        h = h[h["stream"] == stream]
    return h["term"].tolist()


def test_top_level_seed_makes_random_orders_reproducible(frame):
    a = sr.streamreg(FORMULA, frame, seed=5)
    b = sr.streamreg(FORMULA, frame, seed=5)
    pd.testing.assert_frame_equal(a.history, b.history)
    c = sr.streamreg(FORMULA, frame, seed=6)
    assert offered(a) != offered(c)


def test_streams_of_one_length_get_different_permutations(frame):
    fit = sr.streamreg(FORMULA, frame, method="alpha-investing", seed=5)
    first = [int(t[1:]) for t in offered(fit, "x0, x1, x2, x3, x4, x5")]
    second = [int(t[1:]) for t in offered(fit, "z0, z1, z2, z3, z4, z5")]
    assert sorted(first) == sorted(second) == list(range(6))
    assert first != second


def test_a_streams_own_seed_wins(frame):
    own = "y ~ stream(x*, order='random', seed=1)"
    alone = offered(sr.streamreg(own, frame))
    assert offered(sr.streamreg(own, frame, seed=5)) == alone
    assert offered(sr.streamreg(own, frame, seed=6)) == alone


def test_generated_classes_take_the_top_level_seed(frame):
    formula = "y ~ squares(x*, order='random') + transform(z*, fn=exp, order='random')"
    a, b = (sr.streamreg(formula, frame, seed=11) for _ in range(2))
    pd.testing.assert_frame_equal(a.history, b.history)
    assert offered(a) != offered(sr.streamreg(formula, frame, seed=12))


def test_without_any_seed_random_orders_stay_unseeded(frame):
    # documented: no seed at all is a fresh permutation each call
    orders = {tuple(offered(sr.streamreg("y ~ stream(x*, z*, order='random')", frame))) for _ in range(6)}
    assert len(orders) > 1


def test_given_order_is_not_affected_by_the_seed(frame):
    assert offered(sr.streamreg("y ~ stream(x*)", frame, seed=5)) == offered(sr.streamreg("y ~ stream(x*)", frame))


def test_seed_sequence_and_generator_seeds(frame):
    by_int = sr.streamreg(FORMULA, frame, seed=5)
    by_sequence = sr.streamreg(FORMULA, frame, seed=np.random.SeedSequence(5))
    assert offered(by_sequence) == offered(by_int)
    g1 = sr.streamreg(FORMULA, frame, seed=np.random.default_rng(9))
    g2 = sr.streamreg(FORMULA, frame, seed=np.random.default_rng(9))
    assert offered(g1) == offered(g2)


def test_item_seeds_are_derived_per_position():
    assert item_seed(5, 0) == item_seed(5, 0)
    assert len({item_seed(5, 0), item_seed(5, 1), item_seed(6, 0)}) == 3
    assert item_seed(None, 3) is None


def test_cli_seed_makes_random_orders_reproducible(frame, tmp_path, capsys):
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    histories = []
    for k, seed in enumerate(["5", "5", "6"]):
        out = tmp_path / f"h{k}.csv"
        assert main([FORMULA, "--data", str(path), "--seed", seed, "--history", str(out)]) == 0
        histories.append(pd.read_csv(out))
    capsys.readouterr()
    pd.testing.assert_frame_equal(histories[0], histories[1])
    assert histories[0]["term"].tolist() != histories[2]["term"].tolist()
    api = sr.streamreg(FORMULA, pd.read_csv(path), seed=5)
    assert histories[0]["term"].tolist() == offered(api)


def test_select_gives_streams_of_one_length_their_own_random_orders():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 8))
    y = x[:, 0] + rng.normal(size=60)
    fit = sr.select(y, {"a": x[:, :4], "b": x[:, 4:]}, method="alpha-investing", order="random", seed=5, w0=0.05,
                    alpha_delta=0.05)
    h = fit.history
    a = [int(t.split("_")[1]) for t in h.loc[h["stream"] == "a", "term"]]
    b = [int(t.split("_")[1]) for t in h.loc[h["stream"] == "b", "term"]]
    assert a == list(np.random.default_rng(item_seed(5, 0)).permutation(4))
    assert b == list(np.random.default_rng(item_seed(5, 1)).permutation(4))
    assert a != b
    again = sr.select(y, {"a": x[:, :4], "b": x[:, 4:]}, method="alpha-investing", order="random", seed=5,
                      w0=0.05, alpha_delta=0.05)
    pd.testing.assert_frame_equal(again.history, h)


def test_sub_streams_of_one_item_get_their_own_random_orders():
    from streamreg.streams.registry import ClassRequest

    req = ClassRequest(function="clusters", text="clusters(x*, order='random')", args=["x*"],
                       options={"order": "random", "seed": 5}, label="cl", n=10, _y=np.zeros(10))
    values = np.random.default_rng(0).normal(size=(10, 6))
    first, second = req.order(values, n=6, label="cl[1]"), req.order(values, n=6, label="cl[2]")
    assert sorted(first) == sorted(second) == list(range(6))
    assert list(first) != list(second)  # same size, same values: not the same permutation
    again = ClassRequest(function="clusters", text="clusters(x*, order='random')", args=["x*"],
                         options={"order": "random", "seed": 5}, label="cl", n=10, _y=np.zeros(10))
    assert list(again.order(values, n=6, label="cl[1]")) == list(first)  # reproducible
    assert list(again.order(values, n=6)) == list(np.random.default_rng(5).permutation(6))  # the item itself
