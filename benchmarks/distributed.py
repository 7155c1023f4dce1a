"""Searches sharded on Dask (``fairnb.distributed``) against local runs, on the published models.

Reproduce (about 15 minutes on a quiet 2-core machine, over an hour on one shared by other work)::

    PYTHONPATH=. .venv/bin/python benchmarks/distributed.py --data-dir ../shared/data --models-dir ../shared/models

``--only`` picks experiments (comma-separated; ``--only speedup`` runs the 1.6x target alone),
``--benchmarks`` the benchmarks of ``identical``, ``--before FILE`` shows the ``overhead`` numbers of an
earlier run (its ``distributed.json``, e.g. of another checkout) beside this one's,
``--append`` adds to an earlier report (rows of the same experiment are added), ``--quick`` shrinks
every budget (a smoke run).
Results: ``benchmarks/results/distributed.json`` and ``distributed.md`` with the machine and its load
average before and after each experiment (the machine is shared: compare numbers within one
experiment, where the runs are interleaved, rather than across experiments).

Experiments
-----------
``identical``   the six EIDIG/MAFT benchmarks (C-a, C-r, C-g, G-g, G-a, B-a), EIDIG and MAFT at
                1,000 seeds x 1,000 local steps (the numpy backend of the published Keras models):
                the local run, one shard on a 2-worker LocalCluster (the same pairs?), two shards on
                two workers (IDIs and the speed-up over the local run).
``speedup``     the target: C-a EIDIG 1,000 x 1,000 on LocalCluster(1 worker, 1 shard) and
                LocalCluster(2 workers, 2 shards), interleaved rounds, median times; 2 workers should
                be >= 1.6x faster with the same IDI count within the seed-draw noise.
``budget``      SG and AEQUITAS with a wall-clock budget (``--budget`` s) on C-a and C-g: local vs two
                shards on two workers (budget-split strategies: AEQUITAS divides ``n_seeds``, SG its
                seed queue and ``limit``; each shard runs for the whole budget).
``scaling``     C-a EIDIG (``--seeds`` x ``--local``) over (workers, shards), and 16 workers of one thread each on
                this machine (a simulated larger cluster): seconds, IDIs/s and the overhead per shard
                (cluster time not spent inside a shard's search: ``(wall x workers - sum of shard
                times) / shards``), plus the fixed cost of a shard (1 sample per shard).
``overhead``    where a shard's non-search time goes, in CPU seconds (measurable under load): C-a EIDIG
                (``--seeds`` x ``--local``) run locally, its Result pickled as Dask sends it (worker
                side: seconds and MB), unpickled and merged on the client; then real runs on
                LocalCluster(1 worker, 1 shard) and (2 workers, 2 shards): CPU seconds of the client
                process (scheduler, transfer, merge) beside the shards'. Run it with another checkout's
                ``fairnb`` on ``PYTHONPATH`` to compare versions.
``stop``        Stop on a 4-worker LocalCluster: an endless random search in 4 shards, ``stop()`` after
                all four report, seconds until the merged Result is back (target <= 2 s), every pair
                re-checked by the oracle.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

# this file's folder first on sys.path would shadow the ``distributed`` package with this script
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import numpy as np  # noqa: E402

import fairnb  # noqa: E402
from fairnb.bench import BENCHMARKS, load_benchmark, machine  # noqa: E402
from fairnb.search import RandomSearch, cluster_seeds, get_method  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
EXPERIMENTS = ("speedup", "stop", "identical", "scaling", "budget", "overhead")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cluster(n_workers: int):
    from fairnb.distributed import local_cluster

    return local_cluster(n_workers=n_workers, threads_per_worker=1, processes=True)


def bench_inputs(name: str, args, seeds: int):
    bench, data, model, X_train = load_benchmark(name, data_dir=args.data_dir, models_dir=args.models_dir)
    seed_array = cluster_seeds(X_train, seeds, order="random", random_state=0)
    return data.domain, model, X_train, seed_array


def timed(search, model, domain, seeds, **kw):
    """``(result, wall seconds)``; a local run's CPU seconds go to ``result.extras["shard_cpu_s"]`` (a sharded
    run has its shards' in ``extras["shards"]["cpu_s"]``)."""
    t, cpu = time.perf_counter(), time.thread_time()
    r = search.run(model, domain, seeds, **kw)
    if "client" not in kw:
        r.extras["shard_cpu_s"] = round(time.thread_time() - cpu, 3)
    return r, time.perf_counter() - t


def cpu(result) -> tuple[float, float]:
    """(CPU seconds of all shards, of the slowest shard): the machine-independent cost and critical path."""
    if "shards" not in result.extras:
        return result.extras["shard_cpu_s"], result.extras["shard_cpu_s"]
    c = result.extras["shards"]["cpu_s"]
    return round(float(c.sum()), 3), round(float(c.max()), 3)


def same_pairs(a, b) -> bool:
    return a.pairs.drop(columns="time").equals(b.pairs.drop(columns="time"))


def shard_overhead(result, wall: float, workers: int) -> float:
    """Seconds per shard that the cluster spent outside the shards' searches."""
    shards = result.extras["shards"]
    return round(float(wall * min(workers, len(shards)) - shards["elapsed_s"].sum()) / len(shards), 4)


def warm_up(client, model, domain, seeds, methods=("eidig",)) -> None:
    """A tiny run of each method on every worker, so that imports (z3, scikit-learn's trees) are not timed."""
    workers = len(client.nthreads())
    for method in methods:
        params = {"sg": {"limit": 2 * workers, "n_seeds": 2 * workers, "seed_order": "data", "n_samples": 100},
                  "aequitas": {"n_seeds": 2 * workers, "n_local": 2}}.get(method, {"n_seeds": 20, "n_local": 20,
                                                                                 "seed_selection": "as_given"})
        get_method(method)(**params, random_state=0, progress=False).run(model, domain, seeds, client=client,
                                                                          n_shards=workers)


def two_phase(method: str, seeds: int, local: int):
    return get_method(method)(n_seeds=seeds, n_local=local, seed_selection="as_given", random_state=0, progress=False)


# ---------------------------------------------------------------------- experiments
def identical(args) -> list[dict]:
    rows = []
    client = cluster(2)
    try:
        for name in args.benchmarks.split(","):
            domain, model, _, seeds = bench_inputs(name, args, args.seeds)
            warm_up(client, model, domain, seeds, ("eidig", "maft"))
            for method in ("eidig", "maft"):
                n = min(args.seeds, len(seeds))
                local, t_local = timed(two_phase(method, n, args.local), model, domain, seeds)
                one, t_one = timed(two_phase(method, n, args.local), model, domain, seeds, client=client, n_shards=1)
                two, t_two = timed(two_phase(method, n, args.local), model, domain, seeds, client=client, n_shards=2)
                rows.append({"benchmark": name, "method": method, "seeds": n, "local": args.local,
                             "local_idis": local.count(), "local_s": round(t_local, 2), "local_cpu_s": cpu(local)[0],
                             "one_shard_idis": one.count(), "one_shard_same_pairs": same_pairs(local, one),
                             "one_shard_s": round(t_one, 2), "one_shard_cpu_s": cpu(one)[0],
                             "two_shards_idis": two.count(), "two_shards_idis_adf": two.count("adf"),
                             "two_shards_s": round(t_two, 2), "two_shards_cpu_s": cpu(two)[0],
                             "two_shards_slowest_cpu_s": cpu(two)[1],
                             "speedup_vs_local": round(t_local / t_two, 2),
                             "cpu_speedup_vs_local": round(cpu(local)[0] / cpu(two)[1], 2)})
                log(f"identical {rows[-1]}")
    finally:
        fairnb.distributed.close(client)
    return rows


def speedup(args) -> dict:
    domain, model, _, seeds = bench_inputs("C-a", args, args.seeds)
    clients = {1: cluster(1), 2: cluster(2)}
    times, idis, cpus = {1: [], 2: []}, {1: [], 2: []}, {1: [], 2: []}
    try:
        for k in clients:
            warm_up(clients[k], model, domain, seeds)
        for _ in range(args.rounds):
            for k in (1, 2):
                r, t = timed(two_phase("eidig", args.seeds, args.local), model, domain, seeds, client=clients[k],
                             n_shards=k)
                times[k].append(round(t, 3))
                idis[k].append(r.count())
                cpus[k].append(cpu(r)[1])
                log(f"speedup workers={k}: {r.count()} IDIs in {t:.2f} s")
    finally:
        for c in clients.values():
            fairnb.distributed.close(c)
    # the seed-draw noise the 2-shard count is judged against: the local run under other random streams
    draws = [get_method("eidig")(n_seeds=args.seeds, n_local=args.local, seed_selection="as_given", random_state=rs,
                                 progress=False).run(model, domain, seeds).count() for rs in range(1, 5)]
    log(f"speedup local random_state 1-4: {draws} IDIs")
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpus.items()}
    return {"slowest_shard_cpu_1_worker": cpus[1], "slowest_shard_cpu_2_workers": cpus[2],
            "cpu_speedup": round(med_cpu[1] / med_cpu[2], 2), "benchmark": "C-a", "method": "eidig",
            "seeds": args.seeds, "local": args.local, "rounds": args.rounds,
            "seconds_1_worker": times[1], "seconds_2_workers": times[2], "idis_1_worker": idis[1],
            "idis_2_workers": idis[2], "idis_local_other_draws": draws, "median_speedup": round(med[1] / med[2], 2), "target": 1.6}


def overhead(args) -> dict:
    import pickle

    from fairnb.distributed import merge_results

    domain, model, _, seeds = bench_inputs("C-a", args, args.seeds)
    local, _ = timed(two_phase("eidig", args.seeds, args.local), model, domain, seeds)
    t = time.thread_time()
    blob = pickle.dumps(local, protocol=5)
    pack = time.thread_time() - t
    t = time.thread_time()
    part = pickle.loads(blob)
    unpack = time.thread_time() - t
    t = time.thread_time()
    merged = merge_results([part], domain, "eidig", offsets=[0.0], first_ids=[0], seeds=local.extras["seeds"])
    merge = time.thread_time() - t
    out = {"benchmark": "C-a", "method": "eidig", "seeds": args.seeds, "local": args.local,
           "pairs": local.count(), "search_cpu_s": local.extras["shard_cpu_s"], "pickle_cpu_s": round(pack, 3),
           "pickled_mb": round(len(blob) / 2**20, 1), "unpickle_cpu_s": round(unpack, 3),
           "merge_cpu_s": round(merge, 3), "merged_same_pairs": same_pairs(local, merged), "runs": []}
    for k in (1, 2):
        client = cluster(k)
        try:
            warm_up(client, model, domain, seeds)
            c, t = time.process_time(), time.perf_counter()
            time.sleep(5.0)                  # what Dask's threads in this process cost while nothing runs
            idle = (time.process_time() - c) / (time.perf_counter() - t)
            for _ in range(args.rounds):
                c = time.process_time()
                r, wall = timed(two_phase("eidig", args.seeds, args.local), model, domain, seeds, client=client,
                                n_shards=k)
                used = time.process_time() - c
                out["runs"].append({"workers": k, "shards": k, "client_cpu_s": round(used, 3),
                                    "client_cpu_beyond_idle_s": round(used - idle * wall, 3),
                                    "shards_cpu_s": cpu(r)[0], "slowest_shard_cpu_s": cpu(r)[1],
                                    "wall_s": round(wall, 2), "unique_idis": r.count()})
                log(f"overhead {out['runs'][-1]}")
        finally:
            fairnb.distributed.close(client)
    return out


def budget(args) -> list[dict]:
    rows = []
    client = cluster(2)
    try:
        for name in ("C-a", "C-g"):
            domain, model, X_train, seeds = bench_inputs(name, args, args.seeds)
            warm_up(client, model, domain, seeds, ("aequitas", "sg"))
            searches = {"aequitas": lambda: get_method("aequitas")(n_seeds=args.seeds, n_local=args.local,
                                                                   max_time=args.budget, random_state=0,
                                                                   progress=False),
                        "sg": lambda: get_method("sg")(n_seeds=args.seeds, seed_order="data", limit=None,
                                                       max_time=args.budget, random_state=0, progress=False)}
            for method, make in searches.items():
                local, t_local = timed(make(), model, domain, seeds)
                two, t_two = timed(make(), model, domain, seeds, client=client, n_shards=2)
                rows.append({"benchmark": name, "method": method, "budget_s": args.budget,
                             "local_idis": local.count(), "local_tried": local.tried, "local_s": round(t_local, 2),
                             "two_shards_idis": two.count(), "two_shards_tried": two.tried,
                             "two_shards_s": round(t_two, 2), "ratio": round(two.count() / max(local.count(), 1), 2)})
                log(f"budget {rows[-1]}")
    finally:
        fairnb.distributed.close(client)
    return rows


def scaling(args) -> list[dict]:
    domain, model, _, seeds = bench_inputs("C-a", args, args.seeds)
    rows = []
    plan = [(1, [1, 2, 4]), (2, [2, 4, 8]), (16, [16])]
    for workers, shard_counts in plan:
        t = time.perf_counter()
        client = cluster(workers)
        started = time.perf_counter() - t
        try:
            warm_up(client, model, domain, seeds)
            fixed, t_fixed = timed(RandomSearch(n_samples=4 * workers, batch_size=1, random_state=0, progress=False),
                                   model, domain, None, client=client, n_shards=4 * workers)
            for shards in shard_counts:
                r, wall = timed(two_phase("eidig", args.seeds, args.local), model, domain, seeds, client=client,
                                n_shards=shards)
                rows.append({"seeds x local": f"{args.seeds} x {args.local}", "workers": workers, "shards": shards,
                             "seconds": round(wall, 2), "cpu_s": cpu(r)[0],
                             "slowest_shard_cpu_s": cpu(r)[1], "unique_idis": r.count(),
                             "idis_per_s": round(r.count() / wall),
                             "overhead_per_shard_s": shard_overhead(r, wall, workers),
                             "empty_shard_s": round(t_fixed * workers / (4 * workers), 4),
                             "cluster_start_s": round(started, 1)})
                log(f"scaling {rows[-1]}")
        finally:
            fairnb.distributed.close(client)
    return rows


def stop(args) -> dict:
    data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
    model = fairnb.train_demo_model(data, random_state=0)
    client = cluster(4)
    latencies, found, confirmed = [], [], []
    try:
        for _ in range(args.rounds):
            search = RandomSearch(n_samples=None, max_time=float("inf"), random_state=0, progress=False)
            run = search.start(model, data.domain, client=client, n_shards=4)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and sum(
                    st == "running" for st in getattr(search.engine_, "state", [])) < 4:
                time.sleep(0.05)
            time.sleep(1.0)
            t = time.perf_counter()
            result = run.stop()
            latencies.append(round(time.perf_counter() - t, 3))
            found.append(result.count())
            confirmed.append(bool(fairnb.Oracle(model, data.domain).check(result.inputs).discriminatory.all()))
            log(f"stop: {latencies[-1]} s, {found[-1]} IDIs, status {result.status}")
    finally:
        fairnb.distributed.close(client)
    return {"workers": 4, "shards": 4, "stop_seconds": latencies, "max_stop_s": max(latencies), "target_s": 2.0,
            "unique_idis_kept": found, "all_confirmed_by_oracle": all(confirmed)}


# ---------------------------------------------------------------------- report
def md_table(headers: list[str], rows: list[tuple]) -> list[str]:
    """A markdown table; numbers with thousands separators.

    >>> md_table(["a", "b"], [(1000, "x")])
    ['| a | b |', '|---|---|', '| 1,000 | x |']
    """
    cell = lambda v: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)  # noqa: E731
    return (["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
            + ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows])


def summary(res: dict) -> list[str]:
    """The targets, met or not, in a few lines."""
    out = ["## Summary", ""]
    if "identical" in res:
        same = [r["one_shard_same_pairs"] for r in res["identical"]]
        out.append(f"* One shard == local run (same pairs): {sum(same)} of {len(same)} benchmark x method runs.")
    if "speedup" in res:
        s = res["speedup"]
        out.append(f"* 2 workers vs 1, C-a EIDIG: {s['median_speedup']}x wall clock (median of 3 rounds; load average in the target section), "
                   f"{s['cpu_speedup']}x on the CPU critical path (target {s['target']}x); IDIs "
                   f"{s['idis_1_worker'][0]:,} vs {s['idis_2_workers'][0]:,}.")
    if "stop" in res:
        s = res["stop"]
        out.append(f"* Stop on 4 workers: {s['max_stop_s']} s at most (target {s['target_s']} s); pairs confirmed: "
                   f"{s['all_confirmed_by_oracle']}.")
    return out + [""]


def _overhead_comparison(before: dict, after: dict) -> list[str]:
    """The per-shard costs of two runs of ``overhead`` side by side (CPU seconds; client beyond idle: medians)."""
    def client(o, k):
        runs = [r["client_cpu_beyond_idle_s"] for r in o["runs"]
                if r["workers"] == k and "client_cpu_beyond_idle_s" in r]
        return round(statistics.median(runs), 3) if runs else None

    def row(label, o):
        return (label, o["pickle_cpu_s"], o["pickled_mb"], o["unpickle_cpu_s"], o["merge_cpu_s"],
                round(o["pickle_cpu_s"] + o["unpickle_cpu_s"] + o["merge_cpu_s"], 3), client(o, 1), client(o, 2),
                o["search_cpu_s"])

    return ([f"Against {before['label']} (load {before['load']}), the same experiment:", ""]
            + md_table(["run", "pickle on the worker (CPU s)", "MB sent", "unpickle on the client (CPU s)",
                        "merge (CPU s)", "sum (CPU s)", "client beyond idle, 1 shard", "client beyond idle, 2 shards",
                        "search CPU s (local)"],
                       [row(before["label"], before), row("this run", after)]))


def markdown(out: dict) -> str:
    lines = ["# Searches sharded on Dask (fairnb.distributed)", "",
             f"Command: `{out['command']}`",
             f"Machine: {out['machine']['platform']}, {out['machine']['cpus']} CPUs, "
             f"Python {out['machine']['python']}, "
             f"numpy {out['machine']['numpy']}, dask {out['dask']}; measured {out['machine']['date']}.",
             "The machine is shared with other work (load average before/after each experiment below): timings are "
             "contended. Compare numbers within an experiment (its runs are interleaved), not across experiments.",
             "Counts are unique full instances (EIDIG/MAFT convention); models: the numpy backend of the published "
             "Keras models. LocalCluster workers are processes of one thread.", ""]
    res = out["results"]
    lines += summary(res)
    if "identical" in res:
        lines += ["## One shard reproduces the local run; two shards on two workers", "",
                  f"load {out['load']['identical']}", ""]
        lines += md_table(["benchmark", "method", "seeds x local", "local IDIs", "local s (CPU s)", "1 shard IDIs",
                           "same pairs", "1 shard s (CPU s)", "2 shards IDIs", "2 shards s (CPU s, slowest shard)",
                           "wall speed-up", "CPU speed-up"],
                          [(r["benchmark"], r["method"], f"{r['seeds']} x {r['local']}", r["local_idis"],
                            f"{r['local_s']} ({r['local_cpu_s']})", r["one_shard_idis"], r["one_shard_same_pairs"],
                            f"{r['one_shard_s']} ({r['one_shard_cpu_s']})", r["two_shards_idis"],
                            f"{r['two_shards_s']} ({r['two_shards_cpu_s']}, {r['two_shards_slowest_cpu_s']})",
                            r["speedup_vs_local"], r["cpu_speedup_vs_local"]) for r in res["identical"]])
        lines += ["", "CPU s: CPU seconds of the search's thread (local) or of the shards' threads (summed; and the "
                  "slowest shard, the critical path on free CPUs). CPU speed-up = local CPU s / slowest shard's CPU s: "
                  "what two free cores would give, not counting the client's merge.",
                  "", "Two shards find a different number of IDIs than one: each shard draws from its own stream "
                  "(SeedSequence.spawn) and the walks of the two halves of the seeds are de-duplicated together. A shard's walks "
                  "do not know the inputs the other shard visited, so they step onto more distinct inputs: on C-a EIDIG "
                  "1,000 x 1,000 both runs find the same 650 global IDIs, and 2 shards generate 325,270 distinct inputs "
                  "against 312,275 (+4.2 %) at the same success rate (0.850 against 0.850), hence the 4.2 % more IDIs; "
                  "the local run's own seed-draw spread is under 1.2 % (target section).", ""]
    if "speedup" in res:
        s = res["speedup"]
        lines += ["## Target: 2 workers vs 1 worker, C-a EIDIG 1,000 x 1,000", "", f"load {out['load']['speedup']}", "",
                  f"Seconds, 1 worker (1 shard): {s['seconds_1_worker']}; "
                  f"2 workers (2 shards): {s['seconds_2_workers']}.",
                  f"IDIs, 1 worker: {s['idis_1_worker']}; 2 workers: {s['idis_2_workers']}; the local run with "
                  f"random_state 1-4 (the seed-draw noise): {s.get('idis_local_other_draws', 'not measured')}.",
                  f"**Median wall-clock speed-up {s['median_speedup']}x** (target >= {s['target']}x).",
                  f"CPU seconds of the slowest shard, 1 worker: {s['slowest_shard_cpu_1_worker']}; 2 workers: "
                  f"{s['slowest_shard_cpu_2_workers']}: **CPU critical-path speed-up {s['cpu_speedup']}x** (what two "
                  "free cores give; the wall-clock number depends on how much of the two shared cores the run got).",
                  ""]
    if "budget" in res:
        lines += ["## Time budgets: AEQUITAS and SG, local vs 2 shards on 2 workers", "",
                  f"load {out['load']['budget']}", ""]
        keys = ["benchmark", "method", "budget_s", "local_idis", "local_tried", "two_shards_idis", "two_shards_tried",
                "two_shards_s", "ratio"]
        lines += md_table(["benchmark", "method", "budget s", "local IDIs", "local tried", "2 shards IDIs",
                           "2 shards tried", "2 shards wall s", "ratio"],
                          [tuple(r[k] for k in keys) for r in res["budget"]])
        lines += ["", "AEQUITAS shards divide `n_seeds` (the seeds given, in slices); SG shards divide its seed queue "
                  "(and `limit` when set). Each shard runs for the whole wall-clock budget.", ""]
    if "scaling" in res:
        lines += ["## Scaling: C-a EIDIG over workers and shards", "", f"load {out['load']['scaling']}", ""]
        keys = ["seeds x local", "workers", "shards", "seconds", "cpu_s", "slowest_shard_cpu_s", "unique_idis",
                "idis_per_s", "overhead_per_shard_s", "empty_shard_s", "cluster_start_s"]
        lines += md_table(["seeds x local", "workers", "shards", "seconds", "CPU s (all shards)",
                           "CPU s (slowest shard)", "unique IDIs", "IDIs/s", "overhead per shard (s)",
                           "fixed cost of a shard (s)", "cluster start (s)"],
                          [tuple(r[k] for k in keys) for r in res["scaling"]])
        lines += ["", "Overhead per shard: `(wall x workers - sum of the shards' search times) / shards` (dispatch, "
                  "result transfer, merge, idle workers at the end). Fixed cost: a run of 4 x workers shards of one "
                  "sample each, wall time x workers / shards. 16 workers on 2 CPUs simulate a larger cluster: the "
                  "work cannot go faster than 2 CPUs, so the rows show what the extra workers and shards cost.", ""]
    if "overhead" in res:
        o = res["overhead"]
        lines += ["## Overhead of a shard, in CPU seconds", "", f"load {out['load']['overhead']}", "",
                  f"C-a EIDIG {o['seeds']:,} x {o['local']:,} ({o['pairs']:,} pairs), search {o['search_cpu_s']} "
                  "CPU s. "
                  f"The shard's Result pickled as Dask sends it: {o['pickle_cpu_s']} CPU s on the worker, "
                  f"{o['pickled_mb']} MB; on the client unpickled in {o['unpickle_cpu_s']} CPU s and merged in "
                  f"{o['merge_cpu_s']} CPU s (the same pairs as the local run: {o['merged_same_pairs']}; one shard has nothing to "
                  "de-duplicate: the merge of two, with numpy on the domain's keys, is in the client's CPU below).", ""]
        lines += md_table(["workers", "shards", "client process CPU s", "... beyond idle", "shards CPU s (all)",
                           "slowest shard CPU s", "wall s (contended)", "unique IDIs"],
                          [(r["workers"], r["shards"], r["client_cpu_s"], r.get("client_cpu_beyond_idle_s"),
                            r["shards_cpu_s"], r["slowest_shard_cpu_s"], r["wall_s"], r["unique_idis"])
                           for r in o["runs"]])
        if "overhead_before" in res:
            lines += ["", *_overhead_comparison(res["overhead_before"], o)]
        lines += ["", "Client process CPU: every thread of the notebook's process during the run (Dask's scheduler "
                  "of the LocalCluster, receiving the shards' Results, merging), against the shards' own search "
                  "CPU; beyond idle: less what those threads use per second while no run goes on (heartbeats), times "
                  "the run's wall seconds.", ""]
    if "stop" in res:
        s = res["stop"]
        lines += ["## Stop on a 4-worker LocalCluster", "", f"load {out['load']['stop']}", "",
                  f"Seconds from `stop()` to the merged Result: {s['stop_seconds']} (max {s['max_stop_s']}, target "
                  f"<= {s['target_s']}); unique IDIs kept: {s['unique_idis_kept']}; every pair confirmed by the "
                  f"oracle: {s['all_confirmed_by_oracle']}.", ""]
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data-dir")
    p.add_argument("--models-dir")
    p.add_argument("--only", default=",".join(EXPERIMENTS))
    p.add_argument("--seeds", type=int, default=1000)
    p.add_argument("--local", type=int, default=1000)
    p.add_argument("--budget", type=float, default=10.0, help="seconds for the SG / AEQUITAS runs")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="tiny budgets: a smoke run")
    p.add_argument("--benchmarks", default=",".join(sorted(BENCHMARKS)), help="benchmarks of 'identical'")
    p.add_argument("--append", action="store_true",
                   help="add to an earlier report: its other experiments are kept, table rows are added")
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--before", help="an earlier run's distributed.json: its overhead numbers shown beside these")
    p.add_argument("--before-label", default="before", help="what the --before run was (e.g. a commit)")
    args = p.parse_args(argv)
    if args.quick:
        args.seeds, args.local, args.budget, args.rounds = 40, 40, 2.0, 1
    only = [e.strip() for e in args.only.split(",") if e.strip()]
    unknown = sorted(set(only) - set(EXPERIMENTS))
    if unknown:
        p.error(f"unknown experiments {unknown}; choose from {EXPERIMENTS}")
    import dask

    out = {"command": "benchmarks/distributed.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "machine": machine(), "dask": dask.__version__, "results": {}, "load": {}}
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    stem = "distributed_quick" if args.quick else "distributed"
    if args.append and (folder / f"{stem}.json").exists():
        earlier = json.loads((folder / f"{stem}.json").read_text())
        out["results"], out["load"] = earlier["results"], earlier["load"]
        out["command"] = earlier["command"] + "; then " + out["command"]
    if args.before:
        earlier = json.loads(Path(args.before).read_text())
        out["results"]["overhead_before"] = {**earlier["results"]["overhead"], "label": args.before_label,
                                             "load": earlier["load"]["overhead"]}
    for name in only:                  # the reports are rewritten after each experiment
        before = machine()["load_average"]
        found = globals()[name](args)
        earlier = out["results"].get(name)          # --append: rows of other benchmarks are kept beside the new
        out["results"][name] = earlier + found if args.append and isinstance(earlier, list) else found
        out["load"][name] = {"before": before, "after": machine()["load_average"]}
        (folder / f"{stem}.json").write_text(json.dumps(out, indent=1, default=str))
        (folder / f"{stem}.md").write_text(markdown(out))
    if not only:                       # --only "": rewrite the reports (e.g. with --before)
        (folder / f"{stem}.json").write_text(json.dumps(out, indent=1, default=str))
        (folder / f"{stem}.md").write_text(markdown(out))
    return out


if __name__ == "__main__":
    main()
