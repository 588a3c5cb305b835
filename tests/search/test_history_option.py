"""history="none": same decisions as "full", only accepted and refused rows kept, and said so."""
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.datasets.synthetic import SyntheticStream
from streamreg.search.history import HistoryRecorder


def _gaussian(seed=0, n=120, m=300):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m))
    y = x[:, 5] - 0.8 * x[:, 70] + 0.6 * x[:, 180] + 0.5 * x[:, 260] + 0.5 * rng.normal(size=n)
    return y, {"a": x[:, :100], "b": x[:, 100:220], "c": x[:, 220:]}


def _binomial(seed=3, n=300):
    # a quasi-separating binary candidate (y = 1 wherever it is 0) is refused in stream "a"
    rng = np.random.default_rng(seed)
    sep = (rng.uniform(size=n) < 0.7).astype(float)
    z = rng.normal(size=(n, 80))
    eta = 1.5 * z[:, 3] - 1.2 * z[:, 50]
    y = np.where(sep == 0, 1.0, (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float))
    a = pd.DataFrame(np.column_stack([z[:, :10], sep, z[:, 10:40]]),
                     columns=[f"a{j}" for j in range(10)] + ["sep"] + [f"a{j}" for j in range(10, 40)])
    b = pd.DataFrame(z[:, 40:], columns=[f"b{j}" for j in range(40)])
    return y, {"a": a, "b": b}


def _same_decisions(full, none):
    pd.testing.assert_frame_equal(full.selected, none.selected)
    pd.testing.assert_frame_equal(full.per_stream, none.per_stream)
    assert full.search.n_tests == none.search.n_tests and full.stopped_by == none.stopped_by
    np.testing.assert_allclose(full.params, none.params)


def _kept_rows_match(full, none):
    """The rows kept are exactly the accepted and refused rows of the full history."""
    h_full, h_none = full.history, none.history
    status = h_full["status"].astype(str)
    want = h_full[h_full["accepted"] | status.str.startswith("refused")].reset_index(drop=True)
    pd.testing.assert_frame_equal(want, h_none.reset_index(drop=True))
    assert list(h_none.columns) == list(h_full.columns)
    return want


@pytest.mark.parametrize("block_size", [1, 7, 64, 512])
@pytest.mark.parametrize("method", ["alpha-investing", "information-investing", "lord++"])
def test_gaussian_multistream_same_decisions(block_size, method):
    y, streams = _gaussian()
    opts = {"method": method, "block_size": block_size}
    full = sr.select(y, streams, history="full", **opts)
    none = sr.select(y, streams, history="none", **opts)
    _same_decisions(full, none)
    kept = _kept_rows_match(full, none)
    assert len(kept) == len(full.selected) >= 3
    assert len(full.history) == full.search.n_tests  # full keeps every row, none keeps a few
    assert none.history_mode == "none" and not none.history_kept and full.history_kept


@pytest.mark.parametrize("block_size", [1, 5, 512])
@pytest.mark.parametrize("test", ["score", "lr"])
def test_binomial_with_refusal_same_decisions(block_size, test):
    y, streams = _binomial()
    opts = {"family": "binomial", "test": test, "block_size": block_size, **ONE_PHASE}
    full = sr.select(y, streams, history="full", **opts)
    none = sr.select(y, streams, history="none", **opts)
    _same_decisions(full, none)
    kept = _kept_rows_match(full, none)
    refused = kept[~kept["accepted"]]
    assert list(refused["term"]) == ["sep"]
    assert str(none.history.set_index("term").loc["sep", "status"]).startswith("refused")
    text = str(none.summary())
    assert "Refused (separation):" in text
    assert f"only the {len(kept)} selected and refused terms are recorded" in " ".join(text.split())


def test_formula_passes_and_stopping_rules():
    rng = np.random.default_rng(1)
    n = 150
    df = pd.DataFrame(rng.normal(size=(n, 60)), columns=[f"x{j}" for j in range(30)] + [f"z{j}" for j in range(30)])
    df["y"] = df["x3"] + 0.7 * df["z10"] + 0.4 * df["x20"] + rng.normal(size=n)
    for kw in ({"passes": 2}, {"max_tests": 40}, {"max_selected": 2}, {"multistream": False}):
        full = sr.streamreg("y ~ stream(x*) + stream(z*)", df, history="full", block_size=8, **kw, **ONE_PHASE)
        none = sr.streamreg("y ~ stream(x*) + stream(z*)", df, history="none", block_size=8, **kw, **ONE_PHASE)
        _same_decisions(full, none)
        _kept_rows_match(full, none)


def test_lazy_infinite_stream_and_pickle():
    import pickle

    sim = sr.datasets.make_synthetic(n=100, m=20_000, seed=5, lazy=True)
    fits = {h: sr.select(sim.y, SyntheticStream(100, 20_000, 5), max_tests=18_000, history=h,
                         w0=0.05, alpha_delta=0.05, block_size=256) for h in ("full", "none")}
    _same_decisions(fits["full"], fits["none"])
    assert len(_kept_rows_match(fits["full"], fits["none"])) == 4
    again = pickle.loads(pickle.dumps(fits["none"]))
    pd.testing.assert_frame_equal(again.history, fits["none"].history)
    assert again.history_mode == "none"


def test_summary_line_only_without_history():
    y, streams = _gaussian()
    none = sr.select(y, streams, history="none")
    from streamreg.results.summary import selection_facts

    facts = dict(selection_facts(none))
    n = len(none.history)
    assert facts["History:"] == f"not kept (history='none'); only the {n} selected and refused terms are recorded"
    assert "History:" not in dict(selection_facts(sr.select(y, streams)))
    assert "history='none'" in str(none.summary())


def test_plots_say_what_was_not_kept():
    y, streams = _gaussian()
    none = sr.select(y, streams, history="none", **ONE_PHASE)
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match=r"history was not kept \(history='none'.*history='full'"):
        none.plot_pvalues(ax=ax)
    ax = none.plot_wealth(ax=ax)
    assert "wealth at acceptances only" in ax.get_title()
    plotted = sorted(float(v) for line in ax.get_lines() for v in line.get_ydata())
    # each stream's kept points, after its initial wealth at test 0 (the plots' convention)
    starts = [none.search.initial_wealth[str(s)] for s in none.history["stream"].unique()]
    assert plotted == sorted([*none.history["wealth"].astype(float), *starts])
    plt.close(fig)
    full = sr.select(y, streams, **ONE_PHASE)
    fig, ax = plt.subplots()
    full.plot_pvalues(ax=ax)
    assert full.plot_wealth(ax=ax).get_title() == ""
    plt.close(fig)
    # wealth at the kept rows equals the full wealth path at those tests
    w_full, w_none = full.wealth, none.wealth
    known = w_none.notna().to_numpy()
    assert known.sum() == len(none.history)  # each stream's wealth at its own rows, NaN elsewhere
    np.testing.assert_array_equal(w_full.loc[w_none.index].to_numpy()[known], w_none.to_numpy()[known])


@pytest.mark.parametrize("bad, exc, msg", [
    ("partial", ValueError, r"history must be 'full' or 'none', got 'partial'"),
    ("None", ValueError, r"history must be 'full' or 'none', got 'None'"),
    (None, TypeError, r"history must be 'full' or 'none', got None \(NoneType\)"),
    (False, TypeError, r"history must be 'full' or 'none', got False \(bool\)"),
])
def test_bad_values_are_refused(bad, exc, msg):
    y, streams = _gaussian()
    with pytest.raises(exc, match=msg):
        sr.select(y, streams, history=bad)
    df = pd.DataFrame(streams["a"][:, :5], columns=[f"x{j}" for j in range(5)]).assign(y=y)
    with pytest.raises(exc, match=msg):
        sr.streamreg("y ~ stream(x*)", df, history=bad)


@pytest.mark.parametrize("method", ["stepwise-aic", "grafting", "bp-sfs"])
def test_non_streamwise_methods(method):
    y, streams = _gaussian()
    x = streams["a"][:, :40]
    with pytest.raises(ValueError, match=rf"history='none' applies to the streamwise policies only, not to "
                                         rf"method '{method}'"):
        sr.select(y, x, method=method, history="none")
    assert len(sr.select(y, x, method=method, history="full").history) > 0


def test_recorder_keeps_only_accepted_and_refused_rows():
    rec = HistoryRecorder(keep="none")
    status = np.array([-2, -2, 1, -1, -2, -3])
    rec.add("s", [f"t{j}" for j in range(6)], test=np.arange(6), stream_test=np.arange(6),
            statistic=np.arange(6.0), df=1, df_resid=10.0, log_p=-np.arange(6.0), level=0.1, wealth=0.5,
            status=status, pass_=1)
    rec.add("s", ["u0", "u1"], test=np.arange(2), stream_test=np.arange(2), statistic=1.0, df=1,
            df_resid=10.0, log_p=-1.0, level=0.1, wealth=0.5, status=np.array([-2, -2]), pass_=1)
    h = rec.frame(lambda *a: None)
    assert list(h["term"]) == ["t3", "t5"] and rec.n_rows == 2
    with pytest.raises(ValueError, match="history must be one of"):
        HistoryRecorder(keep="some")


def test_infinite_generator_with_history_none():
    rng = np.random.default_rng(2)
    n = 80
    x0 = rng.normal(size=n)
    y = x0 + 0.3 * rng.normal(size=n)

    def gen():
        yield "signal", x0
        j = 0
        while True:
            j += 1
            yield f"noise{j}", rng.normal(size=n)

    fit = sr.select(y, gen(), max_tests=5000, history="none")
    assert fit.selected_terms[0] == "signal" and fit.per_stream["tested"].sum() == 5000
    assert len(fit.history) == len(fit.selected)
    assert math.isfinite(float(fit.per_stream["final_wealth"].iloc[0]))


# ---- generator names under history="none": checked within a block, not kept after it --------------------------

def _items(x, names):
    return ((name, x[:, j]) for j, name in enumerate(names))


def test_history_none_forgets_rejected_generator_names_but_keeps_the_decisions():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(80, 60))
    y = x[:, 3] + 0.3 * rng.normal(size=80)
    names = [f"g{j}" for j in range(60)]
    full = sr.select(y, _items(x, names), method="alpha-investing", block_size=8, max_tests=math.inf)
    none = sr.select(y, _items(x, names), method="alpha-investing", block_size=8, max_tests=math.inf,
                     history="none")
    _same_decisions(full, none)
    assert "g3" in none.selected_terms and none.search.n_tests == 60


def test_history_none_keeps_no_rejected_name_in_the_book():
    from streamreg.streams.arrays import CandidateNames, IterableStream

    rng = np.random.default_rng(1)
    x = rng.normal(size=(30, 40))
    book = CandidateNames({"y": "the response"}, remember_items=False)
    stream = IterableStream("s", _items(x, [f"g{j}" for j in range(40)]), 30, book)
    while stream.take(16) is not None:
        pass
    assert book.n_kept == 0  # flat memory: nothing kept per item
    kept = CandidateNames(remember_items=True)
    stream = IterableStream("s", _items(x, [f"g{j}" for j in range(40)]), 30, kept)
    while stream.take(16) is not None:
        pass
    assert kept.n_kept == 40


def test_history_none_still_refuses_a_repeat_within_a_block_and_the_response_name():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(30, 6))
    y = rng.normal(size=30)
    with pytest.raises(ValueError, match="stream 'stream1': duplicate candidate name 'a'; candidate names must be unique"):
        sr.select(y, _items(x, ["a", "b", "a", "c", "d", "e"]), max_tests=math.inf, history="none")
    with pytest.raises(ValueError, match="candidate 'y' has the name of the response"):
        sr.select(y, _items(x, ["a", "b", "y", "c", "d", "e"]), max_tests=math.inf, history="none")


def test_history_none_refuses_an_accepted_terms_name_and_allows_a_rejected_one_across_blocks():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(100, 12))
    y = 3 * x[:, 0] + 0.1 * rng.normal(size=100)
    # block 1 holds "hit" (accepted) and "miss" (rejected); block 2 repeats both names
    names = ["hit", "miss", "c2", "c3", "hit", "d5", "d6", "d7", "miss", "e9", "e10", "e11"]
    # one pass (the papers' rule): with passes > 1 every name is kept, as the next test checks
    with pytest.raises(ValueError, match="duplicate candidate name 'hit'"):
        sr.select(y, _items(x, names), method="alpha-investing", block_size=4, max_tests=math.inf, history="none",
                  w0=0.5)
    names[4] = "fresh"
    fit = sr.select(y, _items(x, names), method="alpha-investing", block_size=4, max_tests=math.inf,
                    history="none", w0=0.5)
    assert fit.selected_terms == ["hit"]  # the second "miss" was read and tested, not refused
    assert fit.search.n_tests == 12
    with pytest.raises(ValueError, match="duplicate candidate name 'miss'"):  # history="full" keeps every name
        sr.select(y, _items(x, names), method="alpha-investing", block_size=4, max_tests=math.inf, w0=0.5)


def test_history_none_with_passes_keeps_names_and_refuses_a_repeat_as_full_does():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(40, 4))
    y = x[:, 0] + rng.normal(size=40)
    for history in ("full", "none"):
        with pytest.raises(ValueError, match="duplicate candidate name 'a'"):
            sr.select(y, _items(x, ["a", "b", "a", "c"]), block_size=2, max_tests=math.inf, passes=2,
                      history=history)


def test_repeated_generator_names_are_named_with_their_streams_across_blocks():
    from streamreg.streams.arrays import CandidateNames, IterableStream

    rng = np.random.default_rng(2)
    x = rng.normal(size=(30, 12))
    book = CandidateNames({"y": "the response"})
    first = IterableStream("s1", _items(x[:, :6], [f"a{j}" for j in range(6)]), 30, book)
    second = IterableStream("s2", _items(x[:, 6:], ["b0", "b1", "b2", "a4", "b4", "b5"]), 30, book)
    assert first.take(3) is not None and first.take(3) is not None and second.take(3) is not None
    with pytest.raises(ValueError, match="duplicate candidate name 'a4' in streams 's1' and 's2'"):
        second.take(3)
    again = IterableStream("s3", _items(x[:, :4], ["c0", "c1", "c2", "c0"]), 30, book)
    assert again.take(3) is not None
    with pytest.raises(ValueError, match="stream 's3': duplicate candidate name 'c0'; candidate names must be unique"):
        again.take(3)
    clash = IterableStream("s4", _items(x[:, :2], ["d0", "y"]), 30, book)
    with pytest.raises(ValueError, match="candidate 'y' has the name of the response"):
        clash.take(2)


def test_generator_names_beside_an_array_stream_of_generated_names():
    from streamreg.streams.arrays import CandidateNames
    from streamreg.streams.base import NameRange

    book = CandidateNames({"y": "the response"})
    book.claim_range(NameRange("x", 0, 100), "arr")
    book.claim_all(["g0", "g1"], "gen")
    book.claim_all(["g2", "x100"], "gen")  # beyond the range: free
    assert book.n_kept == 4
    with pytest.raises(ValueError, match="stream 'gen': duplicate candidate name 'g0'"):
        book.claim_all(["g3", "g0"], "gen")
    with pytest.raises(ValueError, match="duplicate candidate name 'x5' in streams 'arr' and 'gen'"):
        book.claim_all(["g4", "x5"], "gen")
    plain = CandidateNames()
    plain.claim_all(["a", "b"], "s1")
    with pytest.raises(ValueError, match="duplicate candidate name 'b' in streams 's1' and 's2'"):
        plain.claim_all(["c", "b"], "s2")
    assert plain.n_kept == 2  # the refused block left nothing behind


def test_generator_names_meet_a_frame_stream_s_names_whichever_is_larger():
    """A clash with a name taken up front is found both when the taken names outnumber the
    block's (a wide frame, small blocks) and when the block is larger (a narrow frame)."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(30, 60))
    y = rng.normal(size=30)
    wide = pd.DataFrame(x[:, :50], columns=[f"f{j}" for j in range(50)])
    narrow = pd.DataFrame(x[:, :2], columns=["f0", "f1"])
    for frame, block in ((wide, 4), (narrow, 32)):
        names = [f"g{j}" for j in range(9)] + ["f1"]
        for history in ("full", "none"):
            with pytest.raises(ValueError, match="duplicate candidate name 'f1'"):
                sr.select(y, {"frame": frame, "gen": _items(x[:, 50:], names)}, block_size=block,
                          max_tests=math.inf, history=history)
        ok = sr.select(y, {"frame": frame, "gen": _items(x[:, 50:], [f"g{j}" for j in range(10)])},
                       block_size=block, max_tests=math.inf)
        assert ok.search.n_tests >= frame.shape[1] + 10
