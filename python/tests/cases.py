"""The README's `bfopt recommend` examples and the family verbs' cases, as CLI flags and
as keyword arguments."""

import pathlib

# A 3000-pair trace over timestamps 1..100 (tests/fixtures/pbf_trace.csv) for `optimize pbf`.
TRACE = str(pathlib.Path(__file__).resolve().parent / "fixtures" / "pbf_trace.csv")

# (name, CLI flags after `bfopt recommend`, keyword arguments of bfopt.recommend)
RECOMMEND = [
    ("capacity", ["--fp", "0.01", "--capacity", "1e6"], dict(fp=0.01, capacity=1_000_000)),
    (
        "capacity_memory",
        ["--fp", "0.01", "--capacity", "1e6", "--memory", "12Mb"],
        dict(fp=0.01, capacity=1_000_000, memory=12_000_000),
    ),
    ("window", ["--fp", "0.01", "--window", "1e6"], dict(fp=0.01, window=1_000_000)),
    (
        "window_accesses",
        ["--fp", "0.01", "--window", "1e6", "--max-accesses", "8"],
        dict(fp=0.01, window=1_000_000, max_accesses=8),
    ),
    (
        "window_allow_fn",
        ["--fp", "0.01", "--window", "1e6", "--allow-fn", "0.05"],
        dict(fp=0.01, window=1_000_000, allow_fn=0.05),
    ),
    (
        "window_duplicates",
        ["--fp", "0.01", "--window", "1e6", "--duplicates", "0.5"],
        dict(fp=0.01, window=1_000_000, duplicates=0.5),
    ),
    (
        "window_importance",
        ["--fp", "0.05", "--window", "1e5", "--allow-fn", "0.1", "--importance", "linear:1:50"],
        dict(fp=0.05, window=100_000, allow_fn=0.1, importance="linear:1:50"),
    ),
    (
        "window_penalties",
        ["--fp", "0.01", "--window", "1e5", "--penalties", "1:10"],
        dict(fp=0.01, window=100_000, penalties=(1, 10)),
    ),
    (
        "temporal",
        ["--fp", "0.01", "--horizon", "86400", "--query-length", "128", "--pairs", "1e6"],
        dict(fp=0.01, horizon=86400, query_length=128, pairs=1_000_000),
    ),
    (
        "growing",
        ["--fp", "0.01", "--initial-capacity", "1e4", "--max-items", "1e6"],
        dict(fp=0.01, initial_capacity=10_000, max_items=1_000_000),
    ),
    (
        "capacity_deletions",
        ["--fp", "0.01", "--capacity", "1e6", "--deletions"],
        dict(fp=0.01, capacity=1_000_000, deletions=True),
    ),
]

# A requirement no design meets (the CLI prints the infeasibility object and exits 3).
INFEASIBLE = (
    ["--fp", "0.01", "--window", "1000", "--memory", "10"],
    dict(fp=0.01, window=1000, memory=10),
)

# Small enough to simulate in seconds: `--validate --seed 1` against Plan.validate(seed=1).
VALIDATE = (["--fp", "0.02", "--window", "2000"], dict(fp=0.02, window=2000))

# bfopt.classic against `bfopt model classic` / `bfopt optimize classic`:
# (name, CLI verb, CLI flags, function name, keyword arguments).
CLASSIC = [
    (
        "classic_model",
        ("model", "classic"),
        ["--bits", "9585059", "--hashes", "7", "--items", "1e6"],
        "model",
        dict(bits=9_585_059, hashes=7, items=1_000_000),
    ),
    (
        "classic_model_blocked",
        ("model", "classic"),
        ["--bits", "9585152", "--hashes", "7", "--items", "1e6", "--layout", "blocked"],
        "model",
        dict(bits=9_585_152, hashes=7, items=1_000_000, layout="blocked"),
    ),
    (
        "classic_size",
        ("optimize", "classic"),
        ["--fp", "0.01", "--items", "1e6"],
        "optimize",
        dict(fp=0.01, items=1_000_000),
    ),
    (
        "classic_size_partitioned",
        ("optimize", "classic"),
        ["--fp", "0.001", "--items", "1e5", "--layout", "partitioned", "--max-hashes", "6"],
        "optimize",
        dict(fp=0.001, items=100_000, layout="partitioned", max_hashes=6),
    ),
    (
        "classic_best_k",
        ("optimize", "classic"),
        ["--bits", "9585059", "--items", "1e6"],
        "optimize",
        dict(bits=9_585_059, items=1_000_000),
    ),
    (
        "classic_capacity",
        ("optimize", "classic"),
        ["--bits", "9585059", "--hashes", "7", "--fp", "0.01"],
        "optimize",
        dict(bits=9_585_059, hashes=7, fp=0.01),
    ),
]

# bfopt.apbf against `bfopt model apbf|apbbf` / `bfopt optimize apbf`:
# (name, CLI verb, CLI flags, function name, keyword arguments).
APBF = [
    (
        "apbf_model_window",
        ("model", "apbf"),
        ["--hashes", "10", "--extra-slices", "7", "--window", "1e6"],
        "model",
        dict(hashes=10, extra_slices=7, window=1_000_000),
    ),
    (
        "apbf_model_slices",
        ("model", "apbf"),
        ["--hashes", "4", "--extra-slices", "3", "--slice-bits", "4096"],
        "model",
        dict(hashes=4, extra_slices=3, slice_bits=4096),
    ),
    (
        "apbbf_model",
        ("model", "apbbf"),
        ["--hashes", "10", "--extra-slices", "7", "--block-bits", "512", "--block-hashes", "8", "--window", "1e5"],
        "model",
        dict(hashes=10, extra_slices=7, block_bits=512, block_hashes=8, window=100_000),
    ),
    (
        "apbf_optimize",
        ("optimize", "apbf"),
        ["--fp", "0.01", "--window", "1e6"],
        "optimize",
        dict(fp=0.01, window=1_000_000),
    ),
    (
        "apbf_optimize_budgets",
        ("optimize", "apbf"),
        ["--fp", "0.001", "--window", "1e5", "--max-accesses", "16", "--max-npws", "0.1"],
        "optimize",
        dict(fp=0.001, window=100_000, max_accesses=16, max_npws=0.1),
    ),
    (
        "apbbf_optimize",
        ("optimize", "apbf"),
        ["--fp", "0.01", "--window", "1e6", "--blocked", "--block-bits", "512", "--block-hashes", "8"],
        "optimize",
        dict(fp=0.01, window=1_000_000, blocked=True, block_bits=512, block_hashes=8),
    ),
    (
        "apbf_pareto",
        ("optimize", "apbf"),
        ["--fp", "0.01", "--window", "1e5", "--all"],
        "optimize",
        dict(fp=0.01, window=100_000, all=True),
    ),
]

# bfopt.rbf against `bfopt model rbf` / `bfopt optimize rbf` (small: the debug CLI is slow):
# (name, CLI verb, CLI flags, function name, keyword arguments).
RBF = [
    (
        "rbf_model_sigma",
        ("model", "rbf"),
        ["--bits", "65536", "--hashes", "7", "--recycle-bits", "32768"],
        "model",
        dict(bits=65536, hashes=7, recycle_bits=32768),
    ),
    (
        "rbf_model_messages",
        ("model", "rbf"),
        ["--bits", "1048576", "--hashes", "7", "--recycle-messages", "50000"],
        "model",
        dict(bits=1_048_576, hashes=7, recycle_messages=50_000),
    ),
    (
        "rbf_model_variant",
        ("model", "rbf"),
        ["--bits", "65536", "--hashes", "5", "--recycle-bits", "20000", "--phases", "2", "--hashing", "distinct", "--recycling", "retaining", "--method", "fluid"],
        "model",
        dict(bits=65536, hashes=5, recycle_bits=20000, phases=2, hashing="distinct", recycling="retaining", method="fluid"),
    ),
    (
        "rbf_optimize_bits",
        ("optimize", "rbf"),
        ["--fp", "0.01", "--bits", "65536"],
        "optimize",
        dict(fp=0.01, bits=65536),
    ),
    (
        "rbf_optimize_messages",
        ("optimize", "rbf"),
        ["--fp", "0.01", "--messages", "5000"],
        "optimize",
        dict(fp=0.01, messages=5000),
    ),
    (
        "rbf_optimize_window",
        ("optimize", "rbf"),
        ["--fp", "0.02", "--window", "2000"],
        "optimize",
        dict(fp=0.02, window=2000),
    ),
]

# bfopt.sbf against `bfopt model sbf` / `bfopt optimize sbf`:
# (name, CLI verb, CLI flags, function name, keyword arguments).
SBF = [
    (
        "sbf_model",
        ("model", "sbf"),
        ["--cells", "1e6", "--hashes", "3", "--max", "3", "--decrements", "10"],
        "model",
        dict(cells=1_000_000, hashes=3, max=3, decrements=10),
    ),
    (
        "sbf_model_age",
        ("model", "sbf"),
        ["--cells", "100000", "--hashes", "2", "--max", "1", "--decrements", "5", "--age", "1000", "--insertions", "50000"],
        "model",
        dict(cells=100_000, hashes=2, max=1, decrements=5, age=1000, insertions=50_000),
    ),
    (
        "sbf_optimize",
        ("optimize", "sbf"),
        ["--cells", "1e6", "--hashes", "3", "--max", "3", "--fp", "0.01"],
        "optimize",
        dict(cells=1_000_000, hashes=3, max=3, fp=0.01),
    ),
]

# bfopt.pbf against `bfopt model pbf` / `bfopt model pbf-bound`:
# (name, CLI verb, CLI flags, function name, keyword arguments).
PBF = [
    (
        "pbf_model",
        ("model", "pbf"),
        ["--bits", "100000", "--distinct", "1000,4000", "--frequency", "0.5,0.5"],
        "model",
        dict(bits=100_000, distinct=[1000, 4000], frequency=[0.5, 0.5]),
    ),
    (
        "pbf_model_hashes",
        ("model", "pbf"),
        ["--bits", "1e6", "--distinct", "1e4,2e4,5e4", "--frequency", "0.6,0.3,0.1", "--max-hashes", "4"],
        "model",
        dict(bits=1_000_000, distinct=[1e4, 2e4, 5e4], frequency=[0.6, 0.3, 0.1], max_hashes=4),
    ),
    (
        "pbf_bound",
        ("model", "pbf-bound"),
        ["--pairs", "1e6", "--horizon", "86400", "--fp", "0.01", "--query-length", "128"],
        "bound",
        dict(pairs=1_000_000, horizon=86400, fp=0.01, query_length=128),
    ),
    (
        "pbf_bound_granularity",
        ("model", "pbf-bound"),
        ["--pairs", "1e5", "--horizon", "4096", "--fp", "0.001", "--query-length", "64", "--granularity", "8"],
        "bound",
        dict(pairs=100_000, horizon=4096, fp=0.001, query_length=64, granularity=8),
    ),
]

# `bfopt optimize pbf` (from a trace): the path is given relative to the tests so that
# fixtures written on one machine hold on another.
PBF += [
    (
        "pbf_optimize",
        ("optimize", "pbf"),
        ["--trace", TRACE, "--bits", "100000", "--query-length", "8", "--queries", "2000"],
        "optimize",
        dict(trace=TRACE, bits=100_000, query_length=8, queries=2000),
    ),
    (
        "pbf_optimize_pbf1",
        ("optimize", "pbf"),
        ["--trace", TRACE, "--bits", "100000", "--query-length", "16", "--variant", "1", "--granularity", "4", "--queries", "2000"],
        "optimize",
        dict(trace=pathlib.Path(TRACE), bits=100_000, query_length=16, variant=1, granularity=4, queries=2000),
    ),
]

# bfopt.btbf against `bfopt model|optimize|posterior|simulate btbf`:
# (name, CLI verb, CLI flags, function name, keyword arguments).
BTBF = [
    (
        "btbf_model",
        ("model", "btbf"),
        ["--timers", "1e5", "--hashes", "4", "--bits-per-timer", "16", "--window", "1e4"],
        "model",
        dict(timers=100_000, hashes=4, bits_per_timer=16, window=10_000),
    ),
    (
        "btbf_model_blocks_prior",
        ("model", "btbf"),
        ["--timers", "1e5", "--hashes", "4", "--bits-per-timer", "8", "--window", "1e4", "--block-size", "64", "--prior", "zipf:100000"],
        "model",
        dict(timers=1e5, hashes=4, bits_per_timer=8, window=1e4, block_size=64, prior="zipf:100000"),
    ),
    (
        "btbf_optimize",
        ("optimize", "btbf"),
        ["--bits-per-item", "8", "--window", "1000", "--prior", "uniform:10000", "--max-hashes", "4", "--max-bits-per-timer", "6"],
        "optimize",
        dict(bits_per_item=8, window=1000, prior="uniform:10000", max_hashes=4, max_bits_per_timer=6),
    ),
    (
        "btbf_optimize_standard",
        ("optimize", "btbf"),
        ["--bits-per-item", "10", "--window", "1000", "--prior", "zipf:5000", "--penalties", "fixed:1:5", "--max-hashes", "4", "--max-bits-per-timer", "6", "--objective", "standard"],
        "optimize",
        dict(bits_per_item=10, window=1000, prior="zipf:5000", penalties="fixed:1:5", max_hashes=4, max_bits_per_timer=6, objective="standard"),
    ),
    (
        "btbf_posterior",
        ("posterior", "btbf"),
        ["--timers", "1e5", "--hashes", "4", "--window", "1e4", "--px", "1e-4", "--timestamp-age", "500", "--matching", "4"],
        "posterior",
        dict(timers=100_000, hashes=4, window=10_000, px=1e-4, timestamp_age=500, matching=4),
    ),
    (
        "btbf_posterior_decision",
        ("posterior", "btbf"),
        ["--timers", "1e5", "--hashes", "4", "--window", "1e4", "--block-size", "8", "--offset", "3", "--px", "1e-3", "--timestamp-age", "1240", "--matching", "1", "--touched", "3", "--distinct", "uniform:100000", "--g-form", "increment", "--penalty-fp", "1", "--penalty-fn", "10"],
        "posterior",
        dict(timers=100_000, hashes=4, window=10_000, block_size=8, offset=3, px=1e-3, timestamp_age=1240, matching=1, touched=3, distinct="uniform:100000", g_form="increment", penalty_fp=1, penalty_fn=10),
    ),
    (
        "btbf_simulate",
        ("simulate", "btbf"),
        ["--timers", "20000", "--hashes", "4", "--bits-per-timer", "12", "--window", "2000", "--prior", "uniform:20000", "--epochs", "2", "--queries", "4096"],
        "simulate",
        dict(timers=20_000, hashes=4, bits_per_timer=12, window=2000, prior="uniform:20000", epochs=2, queries=4096),
    ),
]

# bfopt.gbf against `bfopt model|optimize|posterior|simulate gbf`.
GBF = [
    (
        "gbf_model",
        ("model", "gbf"),
        ["--bits", "1e5", "--reset-hashes", "1", "--set-hashes", "4", "--window", "1e4"],
        "model",
        dict(bits=100_000, reset_hashes=1, set_hashes=4, window=10_000),
    ),
    (
        "gbf_model_age_prior",
        ("model", "gbf"),
        ["--bits", "1e5", "--reset-hashes", "2", "--set-hashes", "5", "--window", "1e4", "--age", "4000", "--prior", "uniform:50000", "--distinct-decay"],
        "model",
        dict(bits=100_000, reset_hashes=2, set_hashes=5, window=10_000, age=4000, prior="uniform:50000", distinct_decay=True),
    ),
    (
        "gbf_optimize",
        ("optimize", "gbf"),
        ["--bits-per-item", "8", "--window", "1000", "--prior", "uniform:10000", "--max-hashes", "4"],
        "optimize",
        dict(bits_per_item=8, window=1000, prior="uniform:10000", max_hashes=4),
    ),
    (
        "gbf_posterior",
        ("posterior", "gbf"),
        ["--bits", "1e5", "--reset-hashes", "1", "--set-hashes", "4", "--window", "1e4", "--px", "1e-4", "--matching", "4", "--mismatching", "0"],
        "posterior",
        dict(bits=100_000, reset_hashes=1, set_hashes=4, window=10_000, px=1e-4, matching=4, mismatching=0),
    ),
    (
        "gbf_posterior_decision",
        ("posterior", "gbf"),
        ["--bits", "1e5", "--reset-hashes", "2", "--set-hashes", "4", "--window", "1e4", "--px", "1e-3", "--matching", "3", "--mismatching", "2", "--penalty-fp", "1", "--penalty-fn", "10"],
        "posterior",
        dict(bits=100_000, reset_hashes=2, set_hashes=4, window=10_000, px=1e-3, matching=3, mismatching=2, penalty_fp=1, penalty_fn=10),
    ),
    (
        "gbf_simulate",
        ("simulate", "gbf"),
        ["--bits", "20000", "--reset-hashes", "1", "--set-hashes", "4", "--window", "2000", "--prior", "uniform:20000", "--epochs", "2", "--queries", "4096"],
        "simulate",
        dict(bits=20_000, reset_hashes=1, set_hashes=4, window=2000, prior="uniform:20000", epochs=2, queries=4096),
    ),
]

# bfopt.ibf against `bfopt model|optimize|simulate ibf`.
IBF = [
    (
        "ibf_model",
        ("model", "ibf"),
        ["--policy", "ibf1", "--cells", "1e5", "--hashes", "3", "--max", "3", "--decrements", "10"],
        "model",
        dict(policy="ibf1", cells=100_000, hashes=3, max=3, decrements=10),
    ),
    (
        "ibf_model_options",
        ("model", "ibf"),
        ["--policy", "ibf3", "--cells", "1e5", "--hashes", "3", "--max", "7", "--decrements", "10", "--importance", "linear:1:20", "--counter-bits", "6", "--imp-map", "scale", "--age", "1000", "--member-share", "0.5"],
        "model",
        dict(policy="ibf3", cells=100_000, hashes=3, max=7, decrements=10, importance="linear:1:20", counter_bits=6, imp_map="scale", age=1000, member_share=0.5),
    ),
    (
        "ibf_optimize",
        ("optimize", "ibf"),
        ["--bits", "1e5", "--policies", "sbf,ibf1"],
        "optimize",
        dict(bits=100_000, policies=["sbf", "ibf1"]),
    ),
    (
        "ibf_simulate",
        ("simulate", "ibf"),
        ["--policy", "ibf1", "--cells", "10000", "--hashes", "3", "--max", "3", "--decrements", "10", "--epochs", "2", "--steps", "5000", "--age", "1000"],
        "simulate",
        dict(policy="ibf1", cells=10_000, hashes=3, max=3, decrements=10, epochs=2, steps=5000, age=1000),
    ),
]

# Simulations of the families that had only model/optimize before (small: seconds).
SIMULATE = [
    (
        "classic_simulate",
        ("simulate", "classic"),
        ["--bits", "10000", "--hashes", "4", "--items", "1000", "--epochs", "2", "--probes", "20000"],
        "simulate",
        dict(bits=10_000, hashes=4, items=1000, epochs=2, probes=20_000),
    ),
    (
        "apbf_simulate",
        ("simulate", "apbf"),
        ["--hashes", "4", "--extra-slices", "3", "--window", "1000", "--epochs", "2", "--probes", "5000"],
        "simulate",
        dict(hashes=4, extra_slices=3, window=1000, epochs=2, probes=5000),
    ),
    (
        "rbf_simulate",
        ("simulate", "rbf"),
        ["--bits", "4096", "--hashes", "4", "--recycle-bits", "1024", "--epochs", "2", "--arrivals", "20000"],
        "simulate",
        dict(bits=4096, hashes=4, recycle_bits=1024, epochs=2, arrivals=20_000),
    ),
    (
        "sbf_simulate",
        ("simulate", "sbf"),
        ["--cells", "10000", "--hashes", "3", "--max", "3", "--decrements", "10", "--epochs", "2", "--steps", "5000", "--age", "1000"],
        "simulate",
        dict(cells=10_000, hashes=3, max=3, decrements=10, epochs=2, steps=5000, age=1000),
    ),
    (
        "pbf_simulate",
        ("simulate", "pbf"),
        ["--scale", "0.001", "--queries", "1000", "--method", "pbf2-opt"],
        "simulate",
        dict(scale=0.001, queries=1000, method="pbf2-opt"),
    ),
]

# Every family case, for the fixtures and the generic equality test.
FAMILY_CASES = CLASSIC + APBF + RBF + SBF + PBF + BTBF + GBF + IBF + SIMULATE
