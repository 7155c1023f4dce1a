"""Seed selection: K-Means clusters of the training data, taken round robin (ADF, EIDIG, MAFT, SG).

Two published flavours:

``order="ascending"`` (ADF, NeuronFair, SG): KMeans(c_num, random_state=2019); seed list
    ``c0[0], c1[0], c2[0], c3[0], c0[1], ...`` with members in ascending row order, skipping a
    cluster once it is exhausted.
``order="random"`` (EIDIG, MAFT): seed ``j`` is a uniformly random member of cluster ``j mod c_num``
    (with replacement); when ``n >= len(X)`` the whole training set is used, in order.

Example
-------
>>> import numpy as np
>>> X = np.repeat(np.arange(8.0)[:, None], 2, axis=1)
>>> cluster_seeds(X, 4, c_num=2).shape
(4, 2)
"""
from __future__ import annotations

import numpy as np


def with_kmeans() -> None:
    """Import scikit-learn's K-Means (a second or more the first time): a method that clusters its seeds calls this
    when its module is imported, so that the import is not counted in its first search's ``max_time``."""
    import sklearn.cluster  # noqa: F401


def cluster_seeds(X, n: int, *, c_num: int = 4, order: str = "ascending",
                  random_state: int | None = 2019, should_stop=None) -> np.ndarray | None:
    """``n`` seed inputs from ``X`` chosen round robin over ``c_num`` K-Means clusters.

    With ``should_stop`` (a function polled ten times a second while K-Means runs, e.g. a search's
    stop flag), returns None as soon as it says True: K-Means over 100,000 x 200 rows takes a minute,
    and a search must stop within a second. The abandoned clustering finishes on its own thread.
    """
    from sklearn.cluster import KMeans

    X = np.asarray(X, dtype=float)
    if order not in ("ascending", "random"):
        raise ValueError(f"order must be 'ascending' or 'random', got {order!r}")
    if len(X) == 0:
        raise ValueError("cannot choose seeds from an empty data set")
    if order == "random" and n >= len(X):
        return X.copy()
    c_num = min(c_num, len(np.unique(X, axis=0)))
    labels = _cluster(KMeans(n_clusters=c_num, n_init=10, random_state=random_state), X, should_stop)
    if labels is None:
        return None
    members = [np.flatnonzero(labels == c) for c in range(c_num)]
    if order == "random":
        rng = np.random.default_rng(random_state)
        rows = [members[j % c_num][rng.integers(len(members[j % c_num]))] for j in range(n)]
        return X[np.array(rows)]
    rows, depth = [], 0
    while len(rows) < n and depth < max(len(m) for m in members):
        rows.extend(m[depth] for m in members if depth < len(m))
        depth += 1
    return X[np.array(rows[:n])]


def warn_if_few_seeds(search, requested: int, available: int) -> None:
    """Warn when ``search`` asks for more seeds than it was given (its first round then uses all of them), at the
    user's line (``fairnb.user_frame``). Under ``max_time`` the message says that later rounds draw fresh seeds
    (``fairnb.search.engine.seed_rounds``), so ``summary()["seeds_used"]`` may well exceed ``available``."""
    if requested <= available:
        return
    from ...user_frame import warn

    then = (f"the first round starts from all {available}, and while max_time lasts later rounds draw fresh seeds "
            "from the domain (summary()['seeds_used'] counts every round's, summary()['random_n'] the draws)"
            if search.max_time is not None else f"using all {available} (summary()['seeds_used'])")
    warn(f"{search.name}: n_seeds={requested} but only {available} seed inputs were given; {then}")


def _cluster(kmeans, X: np.ndarray, should_stop) -> np.ndarray | None:
    """``kmeans.fit_predict(X)``, on a worker thread when ``should_stop`` is given (None once it is True).

    Ctrl-C on the calling thread is not held up either: the wait below is interruptible.
    """
    if should_stop is None:
        return kmeans.fit_predict(X)
    import threading

    from threadpoolctl import threadpool_limits

    out: dict = {}

    def work():
        try:
            # OpenMP limits are per thread: this one leaves the rest of the process alone (K-Means
            # seeding on a busy machine: 0.8 s threaded, 0.04 s single-threaded)
            with threadpool_limits(limits=1, user_api="openmp"):
                out["labels"] = kmeans.fit_predict(X)
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            out["error"] = e

    # not a daemon: a K-Means given up (Stop, a spent budget) still runs its C code, and the interpreter aborts
    # ("free(): invalid pointer") when it exits under a daemon thread in OpenMP; it waits for it instead
    worker = threading.Thread(target=work, name="fairnb-kmeans")
    worker.start()
    while worker.is_alive():
        worker.join(0.1)
        if should_stop():
            return None
    if "error" in out:
        raise out["error"]
    return out["labels"]
