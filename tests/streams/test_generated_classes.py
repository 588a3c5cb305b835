"""pca(), squares(), transform(), clusters() and order=: values, refit, prediction, errors."""
import pickle

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.cluster.vq import kmeans2

import streamreg as sr
from streamreg.formula.design import build_design


def _data(seed=0, n=150, p=6):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, p)) @ rng.normal(size=(p, p)), columns=[f"x{j}" for j in range(p)])
    df["z"] = np.exp(rng.normal(size=n))
    df["y"] = df.x1 - 0.5 * df.x2**2 + 2 * np.log(df.z) + df.x0 * df.x3 + rng.normal(size=n)
    return df


def _reference_pca(x, k):
    """PCs from the eigen-decomposition of the correlation matrix (population sd)."""
    mu, sd = x.mean(axis=0), x.std(axis=0)
    z = (x - mu) / sd
    vals, vecs = np.linalg.eigh(z.T @ z / len(z))
    vecs = vecs[:, np.argsort(vals)[::-1][:k]]
    vecs *= np.sign(vecs[np.argmax(np.abs(vecs), axis=0), np.arange(k)])
    return mu, sd, vecs


def _all_values(stream):
    out = {}
    while (b := stream.take(1000)) is not None:
        out.update({nm: b.block.term(j) for j, nm in enumerate(b.names)})
    return out


def test_generated_columns_equal_numpy():
    df = _data()
    cube = lambda a: a**3  # noqa: E731
    d = build_design("y ~ squares(x1, x2) + transform(z, fn=log) + transform(z, fn=sqrt, name=root) "
                     "+ transform(x0, fn=cube) + pca(x*, k=3)", df, binomial=False, functions={"cube": cube})
    vals = {}
    for s in d.streams:
        vals.update(_all_values(s))
    np.testing.assert_array_equal(vals["I(x1**2)"][:, 0], df.x1**2)
    np.testing.assert_array_equal(vals["I(x2**2)"][:, 0], df.x2**2)
    np.testing.assert_array_equal(vals["np.log(z)"][:, 0], np.log(df.z))
    np.testing.assert_array_equal(vals["np.sqrt(z)"][:, 0], np.sqrt(df.z))
    np.testing.assert_array_equal(vals["cube(x0)"][:, 0], df.x0**3)
    x = df[[f"x{j}" for j in range(6)]].to_numpy()
    mu, sd, v = _reference_pca(x, 3)
    ref = (x - mu) / sd @ v
    for j in range(3):
        np.testing.assert_allclose(vals[f"pca_{j + 1}"][:, 0], ref[:, j], rtol=1e-9, atol=1e-9)
    eig = np.linalg.eigvalsh(np.corrcoef(x.T))[::-1][:3]
    np.testing.assert_allclose(d.derived.pca[0].eigenvalues, eig, rtol=1e-9)  # eigenvalue order


def test_clusters_match_scipy_kmeans_and_are_streams():
    df = _data(p=12)
    cols = [f"x{j}" for j in range(12)]
    d = build_design("y ~ clusters(x*, k=4, seed=3)", df, binomial=False)
    x = df[cols].to_numpy()
    z = (x - x.mean(0)) / x.std(0)
    _, lab = kmeans2(z.T, 4, minit="++", seed=np.random.default_rng(3))
    ref = {frozenset(c for c, l in zip(cols, lab) if l == g) for g in set(lab)}  # noqa: E741 -- l, a label
    got = {frozenset(s.term_names) for s in d.streams}
    assert got == ref
    assert [s.name for s in d.streams] == [f"clusters(x*, k=4, seed=3)[{i + 1}]" for i in range(len(ref))]
    assert d.streams[0].term_names[0] == "x0"  # clusters are numbered by their first column


def test_predict_equals_statsmodels_on_explicit_columns():
    df = _data(1, n=200)
    new = _data(2, n=40)
    fit = sr.streamreg("y ~ stream(x*) + squares(x*) + transform(z, fn=log) + pca(x*, k=3) + interactions()",
                       df, w0=0.25, alpha_delta=0.25)
    terms = fit.selected_terms
    assert "np.log(z)" in terms and "I(x2**2)" in terms and any(":" in t for t in terms)
    cols = [f"x{j}" for j in range(6)]
    mu, sd, v = _reference_pca(df[cols].to_numpy(), 3)

    def columns(frame):
        base = {c: frame[c].to_numpy() for c in cols}
        base["np.log(z)"] = np.log(frame.z.to_numpy())
        pcs = (frame[cols].to_numpy() - mu) / sd @ v
        base.update({f"pca_{j + 1}": pcs[:, j] for j in range(3)})
        base.update({f"I({c}**2)": frame[c].to_numpy() ** 2 for c in cols})
        out = []
        for t in terms:
            vals = np.ones(len(frame))
            for f in t.split(":"):
                vals = vals * base[f]
            out.append(vals)
        return np.column_stack([np.ones(len(frame))] + out)

    ref = sm.OLS(df.y.to_numpy(), columns(df)).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fit.predict(new).to_numpy(), ref.predict(columns(new)), rtol=1e-8, atol=1e-10)
    again = pickle.loads(pickle.dumps(fit))
    np.testing.assert_allclose(again.predict(new).to_numpy(), fit.predict(new).to_numpy(), rtol=0, atol=0)


def test_pca_on_shifted_new_data_uses_training_loadings():
    df = _data(3)
    fit = sr.streamreg("y ~ pca(x*, k=4)", df)
    assert any(t.startswith("pca_") for t in fit.selected_terms)
    cols = [f"x{j}" for j in range(6)]
    shifted = df.copy()
    shifted[cols] = shifted[cols] * 2.0 + 5.0
    mu, sd, v = _reference_pca(df[cols].to_numpy(), 4)
    expect = (shifted[cols].to_numpy() - mu) / sd @ v
    x = fit.design(shifted)
    for t in fit.selected_terms:
        np.testing.assert_allclose(x[t].to_numpy(), expect[:, int(t.split("_")[1]) - 1], rtol=1e-9, atol=1e-9)
    refit_on_new = (shifted[cols] - shifted[cols].mean()) / shifted[cols].std(ddof=0)
    assert not np.allclose(x[fit.selected_terms[0]].abs().mean(), np.abs(refit_on_new.to_numpy() @ v).mean(0)[0])
    lin = np.column_stack([np.ones(len(df))] + [expect[:, int(t.split("_")[1]) - 1] for t in fit.selected_terms])
    np.testing.assert_allclose(fit.predict(shifted).to_numpy(), lin @ fit.params.to_numpy(), rtol=1e-9)
    assert "pca_1" not in df.columns  # the caller's frame is untouched


def test_user_transform_refit_and_predict():
    df = _data(4)
    fit = sr.streamreg("y ~ transform(z, fn=lg)", df, functions={"lg": np.log})
    assert fit.selected_terms == ["lg(z)"]
    np.testing.assert_allclose(fit.predict(df.head(7)).to_numpy(),
                               fit.params.iloc[0] + fit.params.iloc[1] * np.log(df.z.head(7)), rtol=1e-10)


@pytest.mark.parametrize(
    "formula, message",
    [
        ("y ~ pca(x*, k=7)", "k=7 is larger than the number of matched columns"),
        ("y ~ clusters(x*, k=9)", "k=9 is larger than the number of matched columns"),
        ("y ~ clusters(x1, k=1)", "at least 2 columns"),
        ("y ~ clusters(x*)", "needs k="),
        ("y ~ transform(x1, fn=log)", "log is undefined for column 'x1'"),
        ("y ~ transform(x*, fn=sqrt)", "sqrt is undefined"),
        ("y ~ transform(z, fn=tan)", "unknown transform 'tan'"),
        ("y ~ transform(z)", "needs fn="),
        ("y ~ pca(w*)", "matches no column"),
        ("y ~ squares(x1, k=2)", "unknown option"),
        ("y ~ stream(x*, order=wobbly)", "unknown order 'wobbly'"),
    ],
)
def test_bad_generated_inputs(formula, message):
    df = _data()
    with pytest.raises((ValueError, sr.FormulaError), match=message):
        sr.streamreg(formula, df)


def test_orders():
    df = _data(5, p=8)
    cols = [f"x{j}" for j in range(8)]

    def offered(formula, **kw):
        fit = sr.streamreg(formula, df, method="alpha-investing", **kw)
        return list(fit.history["term"]), fit

    given, fit = offered("y ~ stream(x*)")
    assert given == cols and "VOID" not in fit.guarantee()
    var, _ = offered("y ~ stream(x*, order=variance)")
    assert var == [cols[i] for i in np.argsort(-df[cols].var().to_numpy(), kind="stable")]
    rnd, _ = offered("y ~ stream(x*, order=random, seed=7)")
    assert rnd == [cols[i] for i in np.random.default_rng(7).permutation(8)]
    last_first = lambda x: np.arange(x.shape[1])  # noqa: E731 - scores: later columns first
    rev, _ = offered("y ~ stream(x*, order=backwards)", functions={"backwards": last_first})
    assert rev == cols[::-1]
    sq, _ = offered("y ~ squares(x*, order=variance)")
    assert sq == [f"I({cols[i]}**2)" for i in np.argsort(-(df[cols] ** 2).var(ddof=0).to_numpy(), kind="stable")]
    _, fit = offered("y ~ stream(x*, order=corr)")
    assert "VOID" in fit.guarantee() and "looked at the response" in fit.guarantee()
    assert fit.order_used_y == ["x*"]


def test_many_clusters_reach_a_kmeans_fixed_point_quickly():
    import time

    from streamreg.streams.generated import cluster_columns

    rng = np.random.default_rng(5)
    x = rng.normal(size=(60, 2000)) + np.repeat(rng.normal(size=(60, 50)) * 3, 40, axis=1)
    t = time.perf_counter()
    lab = cluster_columns(x, 100, seed=1, what="clusters")
    assert time.perf_counter() - t < 60  # scipy's own k-means++ seeding takes minutes here
    z = ((x - x.mean(0)) / x.std(0)).T
    cents = np.array([z[lab == g].mean(axis=0) for g in range(lab.max() + 1)])
    # Lloyd's fixed point: every column is nearest to its own cluster's mean
    d2 = ((z[:, None, :] - cents[None, :, :]) ** 2).sum(axis=2)
    assert (d2.argmin(axis=1) == lab).mean() > 0.99
    assert len(set(lab)) > 45  # the 50 planted groups are mostly recovered
