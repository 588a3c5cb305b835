"""A ``distributed.LocalCluster`` (2 worker processes, 1 thread each) for the Dask tests."""
import pytest


@pytest.fixture(scope="session")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as c:
        yield c
