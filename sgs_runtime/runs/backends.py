"""Running batches of games beyond one machine's process pool.

``dask``: the batches are submitted to a Dask cluster — a scheduler given by
address (``--scheduler tcp://host:8786``), or a local cluster of ``workers``
processes started for the run. Dask is an optional extra:
``pip install 'sgs-engine[distributed]'``. Each worker loads the content once,
as the process pool's workers do, and every game's seed still comes from
(master seed, game index), so the result is the same on any backend.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional, Sequence

from sgs_runtime.errors import UsageError


def run_dask(func: Callable[[Any], Any], args: Sequence[Any], workers: int,
             scheduler: Optional[str] = None) -> Iterator[Any]:
    """Yield ``func(a)`` for every ``a`` of ``args``, in order, computed on a Dask cluster."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("the dask backend needs Dask: pip install 'sgs-engine[distributed]'") from None
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        futures = client.map(func, list(args), pure=False)
        for fut in futures:
            yield fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
