//! Items per cell *and* a cumulative-importance counter: the thesis stream (Section 6.1.2
//! [SBF]) for the policies that keep a counter (IBF2-IBF5).
//!
//! # Model
//! A cell's state is `(v, ℓ, n)`: its value `v ∈ 0..=Max`, the level `ℓ` of its
//! cumulative importance `c` (0 for a zero cell, whose counter is reset) and the number
//! `n` of distinct items hashed to it (capped at `items_cap`). Arrival `u`, with `D(u)`
//! distinct items before it, first runs the deletion phase (a cell at level `ℓ` is
//! decremented with probability `d_u(ℓ)`, `v = 1 → 0` resets the counter), then is new
//! with probability `1 − r` (it hits the cell with probability `a = K/m`: `n ← n + 1`) or
//! a repeat with probability `r` (of one of the cell's items with probability `n/D(u)`);
//! a hit sets `v ← ins(i)`, `c ← min(c + i, C)` with `i` drawn from the importance law.
//! Except that the population law keeps, for a cell holding one item or two, the
//! importance classes of its items ([`POP_CLASSES`] classes of consecutive importances,
//! pairs of them with [`POP_PAIRS`]): such a cell is only ever re-set by its own items,
//! so `i` is drawn from its item's class (from either of its two, evenly), and a new item
//! joining it draws its class. Its counter then grows by its own items' importances
//! (`i, 2i, 3i, …` for one item), not by draws from the whole law, which matters where
//! most non-zero cells hold one item (session 14 below). Cells of three or more items,
//! and the other items of a repeat's own cell, draw from the whole law.
//! The decrement law is the time-stepped mean field of [`super::zero_fraction_transient`],
//! recomputed from the law of the cell at every arrival:
//!
//! ```text
//! Probabilistic-delete-p (IBF3, IBF5): d_u(ℓ) = min(1, P·w(ℓ) / (m·W̄_u)),  w(ℓ) = mean of 1/c over the level,
//!                                      W̄_u = Σ_{v ≥ 1} Pr_u(v, ℓ, n)·w(ℓ)
//! MinImp (IBF2, IBF4):                 d_u(c) = the rank map of the counter law at u (module `minimp`),
//!                                      averaged over the level
//! ```
//! FP of a new arrival at `u`: `(1 − Pr_u(v = 0))^K`. FN of a repeat queried at `t`
//! whose item was last inserted at `L` (law `Pr(L | t)` of [`super::RepeatStream`]): its
//! cell right after `L` holds `n = 1 + N` items, `N ~ Pois(K·(D(L+1) − 1)/m)` others; its
//! counter before the set has the law of the cells with `n = N` (the item was new at `L`,
//! probability `1 − r`) or `n = N + 1` (a repeat, probability `r`: of the arrivals that
//! last insert a given item, a share `r` are repeats) right after the deletion phase at
//! `L`; then `v = ins(i)`, `c ← c + i`. One backward pass from `t` through the stored
//! decrement laws, the tagged item's own repeats excluded (rate `r·(n − 1)/D(u)`), gives
//! `z(L → t)`; `FN_i(t) = Σ_L Pr(L | t)·(1 − (1 − z_i(L → t))^K)`, averaged over
//! [`TIME_SAMPLES`] query times and read at [`READS`] ages per query time.
//!
//! # Reductions (why it is fast)
//! * Counter levels: `c = 1..=`[`EXACT_LEVELS`] exactly, then bins whose width grows by
//!   [`LEVEL_RATIO`], and the saturated `C` alone (46 levels instead of 255 for 8-bit
//!   counters). A set from level `ℓ` lands on `rep(ℓ) + i`, split linearly between the two
//!   nearest level representatives (so the mean counter is kept). With every level exact
//!   and no repeats the model is the existing transient exactly (tested).
//! * The start law of a repeat's cell is read from snapshots of the forward law taken
//!   every `N/`[`SNAPSHOTS`] arrivals.
//! * Importance classes of the population's one- and two-item cells: 10 classes of 5
//!   importances give a wFN within 0.1% of 20 classes for IBF3 and IBF5 and within 1.3%
//!   for MinImp at 1/32 size (5 classes: 0.4% and 3.5-6%; one-item cells alone with 10
//!   classes are within 0.1-1.4% of 50; `fn_with_population_classes`). Three-item cells
//!   keep none (with pairs, the pool weight and zero fraction over the stream already
//!   match the filter's to 1-2%).
//! * The pool law of an item's cell is tracked for every importance writing a value
//!   below `Max` and [`TAGGED`] importances above (FN interpolated in between), split into
//!   [`OWN_CLASSES`] classes of the item's own insertion count: the `K` cells of an item
//!   share its repeats, so their counters are correlated; each class is treated as
//!   independent cells. At the thesis's items per cell this lowers IBF3's wFN from 0.437
//!   (one class) to 0.397 (four; 0.394 with sixteen).
//!
//! # Measured error
//! Model / measured (99% interval), importance uniform on 1..50, 70% repeats.
//!
//! Agreement setting (m = 1024, K = 4, Max = 3, P = 6, 12 000 arrivals, 8 epochs, seeds
//! 24-28; about 14 items per cell at the end; `tests/agreement/stable.rs`, which states
//! wFP within the interval ±5%, wFN ±1% (IBF3, IBF5) or ±4% (MinImp; ±5% and ±6%
//! before session 19, ±15% before session 14; wFN before sessions 20, 19 and 14 in
//! brackets):
//!
//! | policy | wFP | wFN | wFP, wFN of the independent-sets model |
//! |---|---|---|---|
//! | IBF2 | 0.0353 / 0.0313 [0.0272, 0.0354] | 0.831 (0.827, 0.838, 0.878) / 0.799 [0.788, 0.810] | 0.058, 0.929 |
//! | IBF3 | 0.0904 / 0.0897 [0.0792, 0.1002] | 0.744 (0.744, 0.763, 0.766) / 0.737 [0.727, 0.747] | 0.155, 0.677 |
//! | IBF4 | 0.0386 / 0.0387 [0.0343, 0.0430] | 0.822 (0.817, 0.828, 0.870) / 0.784 [0.776, 0.791] | 0.063, 0.924 |
//! | IBF5 | 0.0815 / 0.0797 [0.0731, 0.0862] | 0.761 (0.761, 0.780, 0.781) / 0.756 [0.750, 0.761] | 0.139, 0.696 |
//!
//! Thesis size (Tables 3-4 [SBF]: K = 4, Max = 4, P = 7, 100 000 arrivals, 4 epochs; n =
//! 65536 holds about 1.8 items per cell at the end, n = 262144 about 0.46):
//!
//! | policy, n | wFP | wFN (before sessions 20, 19; before session 14) | independent sets |
//! |---|---|---|---|
//! | IBF3, 65536 | 0.0263 / 0.0272 | 0.426 (0.429, 0.437; 0.478) / 0.414 | 0.181, 0.288 |
//! | IBF3, 262144 | 0.00091 / 0.00098 | 0.331 (0.336, 0.342; 0.400) / 0.318 | 0.034, 0.091 |
//! | IBF5, 262144 | 0.00077 / 0.00080 | 0.366 (0.369, 0.377; 0.415, 1/32 scale) / 0.353 | 0.029, 0.097 |
//! | IBF2, 262144 | 0.00032 / 0.00022 | 0.308 (0.342, 0.343; 0.534, 1/32 scale) / 0.269 | 0.010, 0.906 |
//! | IBF4, 262144 | 0.00037 / 0.00057 | 0.282 (0.288, 0.288; 0.528) / 0.241 | |
//!
//! (the model at the thesis's size: `thesis_size_model`; IBF4 measured with seed 61,
//! `THESIS_STREAM_FULL` in `validation/src/experiments/stable.rs`.) At 1/32 of the size
//! (n = 8192, 3125 arrivals: the same items per cell) the model's wFN is 2.4% (IBF3)
//! and 1.8% (IBF5) lower, 3.7% (IBF2) and 5.7% (IBF4) higher, and the
//! measurement agrees with the full size (IBF3 0.00102 / 0.317), so `bfopt reproduce
//! sbf-table3` / `sbf-table4` at their default scale show these errors in a minute.
//! There (seed 1, 4 epochs) wFN model / measured [99% interval], percent, for n = 16384,
//! 65536, 262144 at k = 4 and 8 (model before session 20 in brackets, that is with 5
//! tracked importances; before session 19 up to 1.6 higher, before session 14 up to 20.7
//! for IBF3 and 53.4 for MinImp in these cells):
//!
//! | policy, n | k = 4 | k = 8 |
//! |---|---|---|
//! | IBF3, 16384 | 56.3 (56.4) / 56.2 [51.0, 61.3] | 39.5 (39.6) / 39.1 [37.9, 40.2] |
//! | IBF3, 65536 | 41.7 (42.0) / 42.4 [38.5, 46.3] | 25.6 (26.1) / 24.5 [21.8, 27.3] |
//! | IBF3, 262144 | 32.3 (32.8) / 32.5 [29.9, 35.1] | 13.9 (14.6) / 13.2 [10.8, 15.5] |
//! | IBF5, 16384 | 59.9 (60.0) / 61.2 [57.4, 64.9] | 44.4 (44.6) / 45.3 [41.0, 49.6] |
//! | IBF5, 65536 | 45.3 (45.5) / 43.9 [43.2, 44.6] | 28.9 (29.3) / 29.0 [24.6, 33.3] |
//! | IBF5, 262144 | 35.9 (36.3) / 36.0 [32.8, 39.2] | 16.5 (17.1) / 16.5 [16.1, 17.0] |
//! | IBF2, 16384 | 70.5 (70.0) / 68.6 [61.3, 75.9] | 64.3 (64.2) / 61.2 [58.0, 64.4] |
//! | IBF2, 65536 | 47.2 (46.7) / 41.7 [38.2, 45.1] | 35.2 (35.4) / 32.9 [28.5, 37.3] |
//! | IBF2, 262144 | 32.0 (36.2) / 28.3 [25.7, 31.0] | 14.2 (15.9) / 11.7 [10.9, 12.4] |
//! | IBF4, 16384 | 68.5 (67.9) / 64.9 [61.6, 68.2] | 62.9 (62.7) / 59.1 [57.2, 60.9] |
//! | IBF4, 65536 | 44.0 (45.0) / 39.4 [33.4, 45.4] | 33.3 (33.4) / 29.1 [25.6, 32.6] |
//! | IBF4, 262144 | 29.9 (32.8) / 25.3 [23.1, 27.6] | 12.1 (14.3) / 9.7 [8.7, 10.6] |
//!
//! What is left (after session 14, below; session 19 then removed two discretisation
//! biases of the FN pass, which were part of what is called correlation here): the
//! per-cell law now matches the filter's
//! (the pool weight and zero fraction over the stream to 1%, the per-cell zero rate of a
//! repeat's cells to a few %); the wFN is still high because a repeat's `K` cells are
//! zero together more often than independent cells would be, which this model cannot
//! hold (sessions 10-11): independent cells at the measured per-bucket zero rate are 1.5%
//! (IBF3, IBF5) and 3.5% (MinImp) above the measured FN of repeats at m = 1024, 7.5% and
//! 16-17% at the thesis's 1/32 size, and this model now sits at that independent-cells
//! figure (session 14). Not the shared pool weight (session 11), not the item's own
//! weight in the pool, not the sequential picks of the deletion phase (session 14): a
//! sampler that conditions the cells on the times of all the item's own insertions
//! reaches the measured wFN at 1/32 size (IBF3, IBF2; session 14), so it is the shared
//! own history, which this model keeps only as a count class. Before session 14 the per-cell law was the larger part (the
//! population re-set its cells with importances drawn from the whole law, leaving too
//! few low-counter cells and too small a deletion weight), and for MinImp it looked like
//! a rank mean field that puts the threshold too high (n = 262144: FN 0.24 at importance
//! 43 against a measured step from 0.95 at 22 to 0.09 at 29); that was the same counter
//! law (MinImp deletes the least counters, which single-item cells hold).
//!
//! Session 10 (issue 19 item 1, still open; the ignored tests named below print these):
//! * The correlation persists under the finest conditioning measured and does not come
//!   from the item's own repeats. An unbiased
//!   estimate (`correlation_across_distinct_repeats` in `validation/src/experiments/
//!   stable.rs`: buckets by exact importance, age in 64ths, query time in quarters and own
//!   class; the independent-cells FN a U-statistic over one cell from each of 4 distinct
//!   repeats of the bucket, 256 epochs) gives the SBF +0.0% at both sizes, IBF3 and IBF5
//!   +2.1% at m = 1024 and +8% at 1/32 size, MinImp +4% and +16-17%; repeats whose item was
//!   never re-inserted before its last insertion (own class 1) show nearly the same excess
//!   (IBF3 at 1/32 size: FN 0.584, independent 0.620), so it is not the shared own history.
//!   Ages in 256ths without the query time and own class give more, not less (IBF3 +2.7%
//!   at m = 1024, +22% at 1/32 size): the query time carries much of it at 1/32 size, and
//!   whether conditioning finely on all of them at once removes the rest is not measured
//!   (the buckets get too sparse).
//! * Conditioning on the whole own history anyway (`whole_history_conditioning_at_1_32_size`:
//!   2000 sampled repeats, each cell's law carried forward under this model's decrement
//!   laws given the sampled own repeats, so the cells are independent given the history)
//!   gives wFN at 1/32 size IBF3 0.369 ± 0.009, IBF5 0.389 ± 0.009, IBF2 0.536 ± 0.010,
//!   IBF4 0.518 ± 0.010 (this model 0.397, 0.415, 0.534, 0.531; measured 0.325, 0.360,
//!   0.283, 0.253): a third to a half of the Probabilistic-delete-p gap, none of MinImp's.
//!   The same samples with the own repeats averaged give 0.513-0.593: this model's
//!   conditioning on the last insertion and the own count already takes most of it.
//!   It costs about 700 s for the four policies on a loaded machine, too slow for a model.
//! * Tracking every importance instead of [`TAGGED`] (`interpolated_importances`) moves
//!   IBF3 to 0.392 and IBF5 to 0.411 (1%), and IBF2 up to 0.571: not the cause.
//! * So what is left for IBF3/IBF5 is a correlation between the cells of one item that a
//!   mean field over independent cells cannot hold, plus the per-cell law; for MinImp it
//!   is the rank mean field, as above. A likely source (not tested): an item's cells are
//!   set together to the same low counter and so compete in the same small pool of
//!   low-counter cells, whose size, and so the decrement weight `W̄_u` this model fixes
//!   at its mean, fluctuates. (Tested in Session 11, below: it is not.)
//!
//! Session 11 (issue 19 item 1, still open; K = 4, Max = 4, P = 7, importance 1..50, 70%
//! repeats as in session 10, so m = 1024 here is 12 000 arrivals at the thesis's Max and P,
//! not the agreement setting's Max = 3, P = 6; the ignored tests named below print these):
//! * The `W̄_u` fluctuation hypothesis is false. `pool_weight_fluctuation` (in
//!   `validation/src/experiments/stable.rs`, 256 epochs at m = 1024, 1024 at 1/32 size,
//!   seed 9) records the filter's deletion weight `W_u = Σ_{v ≥ 1} 1/c` (this model's
//!   `m·W̄_u`) and each repeat's exposure `Σ 1/W_u` over the deletion phases since its
//!   last insertion (a cell of counter `c` is decremented with probability about
//!   `P/(c·W_u)` per phase, so an item's `K` cells share it). The pool is small: `W` is
//!   8.1 throughout at m = 1024, and 18, 32, 50 at a quarter, half and the end of the 1/32
//!   size stream (IBF3; IBF5 16, 29, 46). The exposure relative to its mean over epochs at
//!   the same two times spreads (sd of its log 0.08 at m = 1024, 0.15-0.16 at 1/32 size),
//!   but the FN does not follow it: within cells of (age in 16ths, query time in
//!   quarters), the FN of repeats per quartile of the ratio (mean ratio 0.85, 0.96, 1.03,
//!   1.16) is 0.452, 0.451, 0.443, 0.455 (IBF3, 1/32 size; IBF5 0.487, 0.484, 0.474,
//!   0.489; at m = 1024, mean ratio 0.94-1.07, IBF3 0.653, 0.693, 0.688, 0.659 and IBF5
//!   0.687, 0.724, 0.721, 0.693, the extremes lower, not rising). Adding the quartile to
//!   the buckets of the independent-cells U-statistic (exact importance, age, query time
//!   in quarters, own class) leaves the excess where it was, with ages in 16ths, 64ths,
//!   256ths: IBF3 at 1/32 size +11.9, +8.2, +7.5% without, +11.7, +7.9, +7.8% with; IBF5
//!   +11.6, +7.9, +7.3% and +11.4, +7.7, +7.6%; at m = 1024 IBF3 +3.6, +2.1, +1.5% and
//!   +3.5, +2.1, +1.6%, IBF5 +3.7, +2.1, +1.5% and +3.6, +2.1, +1.6%. So conditioning an
//!   item's cells on a shared random `W̄` (a mixture over the pool's fluctuation) cannot
//!   take the correlation away; it was not implemented.
//! * Finer ages shrink the excess: at m = 1024 from +3.6% (16ths) to +1.5% (256ths), so
//!   part of what Session 10 read there as correlation is the spread of ages within a
//!   bucket; at 1/32 size it levels off near +7.5%.
//! * The item's own cells in the pool (`self_weight_in_the_pool`: its cells decremented
//!   with `min(1, P·w(ℓ)/(m·W̄_u + K·w(ℓ)))`, every own cell counted alive, so the
//!   largest such effect; `Reductions::self_weight`, off in the model): wFN IBF3
//!   0.6550 → 0.6495 and IBF5 0.6820 → 0.6769 at m = 1024, 0.3965 → 0.3933 and 0.4145 →
//!   0.4111 at 1/32 size. Under 1%: not it.
//! * Every counter level exact (same test): IBF3 0.6545, IBF5 0.6816 at m = 1024, 0.3959,
//!   0.4141 at 1/32 size. Not the bins.
//! * Where the gap is, in unweighted FN of repeats (`unweighted_fn_of_repeats` against
//!   `pool_weight_fluctuation`): IBF3 model 0.698 / measured 0.673 at m = 1024 (+3.7%),
//!   0.530 / 0.450 at 1/32 size (+18%); IBF5 0.726 / 0.706 (+2.9%), 0.547 / 0.483 (+13%).
//!   Independent cells at the measured rate of each 256ths bucket give IBF3 0.681 at m =
//!   1024 and 0.476 at 1/32 size (buckets of at least 4 repeats; their FN 0.671 and
//!   0.442). So at 1/32 size this model's per-cell law is about 11% high (0.530 against
//!   0.476) and the correlation adds about 7.5%; at m = 1024 about 2% and 1.5%. The
//!   per-cell law, not the correlation, is the larger part, and neither the pool's weight
//!   nor the item's own weight in it explains either.
//! * No bound either: on every configuration measured so far this model is above the
//!   measurement (the tables above), but 15-22% above (IBF3, IBF5) at 1/32 size (k = 4)
//!   and more at k = 8, so it is not a bound within 10%; such a bound needs the per-cell
//!   law first.
//!
//! Session 14 (issue 19 item 1: the per-cell law found and fixed; K = 4, Max = 4, P = 7,
//! importance 1..50, 70% repeats, m = 1024 with 12 000 arrivals and 1/32 size as in
//! session 11; the ignored tests named below print these):
//! * Start law against decay (`start_law_diagnostic::per_cell_start_and_decay` in
//!   `validation/src/experiments/stable.rs`, 1024 epochs at 1/32 size and 128 at m =
//!   1024, seed 14, each repeat's `K` cells with their counter right after its last
//!   insertion; `per_cell_probe` here, the same rows from this model). The start law was
//!   right: IBF3 at 1/32 size, own class 1, the share of cells zero before the last
//!   insertion set them 0.891 model / 0.890 filter, the mean start counter at importance
//!   26 35.7 / 36.2, the share per bin of the counter before the set within 0.01. The
//!   decay was not: the per-cell zero rate at the query, importance 13, 26, 50, was 0.472,
//!   0.239, 0.093 / 0.397, 0.190, 0.070 (IBF3; IBF5 at 50 0.0933 / 0.0847), and from a
//!   fresh start (importance 26, own class 1) 0.425 / 0.359; at m = 1024 0.3092 / 0.3015
//!   (importance 26, own class 1).
//! * Not the sequential picks (hypothesis 3): the filter with its deletion phase made
//!   independent per cell, probability `min(1, P/(c·W))` (`StableFilter::
//!   set_independent_deletion`), gives FN of repeats 0.4463 against 0.4499 (IBF3, 1/32
//!   size), 0.4804 / 0.4839 (IBF5), 0.6716 / 0.6731 and 0.7054 / 0.7069 at m = 1024, per-cell
//!   zero rate 0.2784 / 0.2795: under 1%.
//! * The pool weight was low: this model's `m·W̄_u` at a quarter, half and the end of the
//!   1/32-size stream was 15.4, 27.6, 44.6 (IBF3; IBF5 14.7, 26.4, 42.9;
//!   `pool_weight_of_the_model`) against the filter's 18.6, 32.5, 51.0 (16.9, 29.3, 46.8;
//!   `population_diagnostic::counter_law_of_the_population`, 256 epochs, seed 15) at the
//!   same zero fraction (0.748 / 0.752 at the end); at m = 1024 8.0 / 8.1-8.4. Each cell
//!   was decremented about 15% too fast. What-if (`fn_with_the_pool_weight_scaled`): `W̄`
//!   times 1.08 and 1.15 moves IBF3's FN of repeats at 1/32 size from 0.530 to 0.494 and
//!   0.466.
//! * Why: the counter law of the non-zero cells. At the end of the 1/32-size stream (IBF3)
//!   the shares with counter 16-31, 32-63 and ≥ 128 were 0.131, 0.238, 0.328 in the filter
//!   and 0.078, 0.346, 0.255 here. At 0.46 items per cell most non-zero cells hold one
//!   item and only it re-sets them, so their counter runs `i, 2i, 3i, …` (spread); this
//!   model re-set every cell with an importance drawn from the whole law (`i + i'`,
//!   concentrated near 51), leaving too few low counters and so too small a `W̄`. At 14
//!   items per cell (m = 1024) the whole law is right, hence no error there.
//! * The fix (module doc, Model): one- and two-item cells of the population keep their
//!   items' importance classes. The pool weight and zero fraction at a quarter, half and
//!   end of the 1/32-size stream are now 18.3, 32.3, 50.8 and 0.9238, 0.8582, 0.7523
//!   (IBF3; filter 18.6, 32.5, 51.0 and 0.9236, 0.8581, 0.7522), IBF5 16.6, 29.4, 46.9
//!   (16.9, 29.3, 46.8); with one-item cells only, 49.1 and 45.6 at the end. Per-cell zero
//!   rate at importance 13, 26, 50: IBF3 0.411, 0.192, 0.070 (filter 0.397, 0.190,
//!   0.070), IBF5 at 16, 27, 50 0.376, 0.210, 0.084 (0.368, 0.207, 0.085); from a fresh
//!   start 0.370 (0.359); at m = 1024 0.3072 (0.3015).
//! * FN of repeats, unweighted (`fn_with_population_classes`), before → after, against
//!   the independent-cells figure at the measured per-bucket zero rates and the measured
//!   FN (in brackets; IBF3 from session 11, ages in 256ths; MinImp from
//!   `correlation_across_distinct_repeats`, session 10, ages in 64ths): 1/32 size IBF3 0.530 → 0.478 (0.476, 0.450), IBF5 0.547 → 0.510
//!   (measured 0.483), IBF2 0.715 → 0.587 (0.586, 0.505), IBF4 0.712 → 0.555 (0.559,
//!   0.478); m = 1024 IBF3 0.698 → 0.693 (0.681, 0.673), IBF5 0.726 → 0.724 (0.707
//!   measured), IBF2 0.876 → 0.839 (0.845, 0.812), IBF4 0.863 → 0.825 (0.831, 0.798). So
//!   this model now sits at the independent-cells figure for all four policies: the
//!   per-cell law is right, and what is left is the correlation of an item's cells
//!   (7.5% at 1/32 size for IBF3/IBF5, 16-17% for MinImp; 1.5% and 3.5% at m = 1024). The
//!   MinImp gap of earlier sessions, read as the rank mean field, was mostly this counter
//!   law. wFN at 1/32 size: IBF3 0.3965 → 0.3385, IBF5 0.4145 → 0.3732, IBF2 0.5338 →
//!   0.3663, IBF4 0.5307 → 0.3317.
//! * The correlation that is left is not the spread of query times within a bucket
//!   (the deletion weight triples over the 1/32-size stream):
//!   `correlation_by_query_time_resolution` (validation, 256 epochs, ages in 32nds, no own
//!   classes) gives an independent-cells excess of +15.6% with query times in quarters
//!   and +14.2% in 16ths (IBF3 at 1/32 size; m = 1024 +3.4% and +3.3%). Finer ages and
//!   the own class take more of it (sessions 10-11: +7.5% with ages in 256ths, query
//!   quarters and own classes).
//! * What is left is the item's own history: conditioning each repeat's `K` cells on the
//!   times of all its own insertions (`whole_history_conditioning_with_population_classes`:
//!   session 10's sampler on this model's population, 1000 samples, seed 7) gives wFN at
//!   1/32 size IBF3 0.317 ± 0.012 and IBF2 0.285 ± 0.014, against measured 0.325 (seed 9,
//!   session 10; 0.325 [0.299, 0.351] with seed 1) and 0.283 ([0.257, 0.310]), where this
//!   model, which keeps only the own-insertion count class, gives 0.3385 and 0.3663. So the
//!   "correlation" of an item's cells is, within the sampler's error, their shared own
//!   history (the times of the item's earlier insertions raise all its cells' counters
//!   together), which the count classes hold only in part (16 count classes instead of 4
//!   moved IBF3 by 1% before). Not yet in the model: the sampler costs about 90 s per
//!   policy; a fast form needs classes by the times of the own insertions (e.g. the gap
//!   since the previous one), not by their count.
//! * Tables above: the agreement setting and the thesis size re-run with this model
//!   (measurements unchanged); at 1/32 size `bfopt reproduce sbf-table4` (seed 1, 4
//!   epochs) now has the model's wFN inside the measured 99% interval in 5 of 6 settings
//!   for IBF3 and 4 of 6 for IBF5 (before 1 and 2), within 6.4% of the measured mean
//!   where it is outside, and at most 14% above the mean (IBF3, n = 262144, k = 8, inside
//!   its interval); MinImp in 2 and 0 of 6, at most 50% above (was 3.7 times). The wFP
//!   (`sbf-table3`) is inside the interval in 6, 6, 6 and 3 of 6 settings for IBF3, IBF4,
//!   IBF5, IBF2 (before 6, 6, 5, 3). The model is still above the measured wFN in every
//!   IBF2-IBF5 cell of the table, so it is an upper estimate, not yet within a stated 10%
//!   (IBF3 at n = 262144, k = 8 is 14% above the mean).
//!
//! Session 19 (issue 19 item 1, still open for MinImp; K = 4, Max = 4, P = 7, importance
//! 1..50, 70% repeats; the ignored test `fn_with_own_time_bins` prints these):
//! * Two discretisations of the FN pass biased the wFN up. The ages between reads were
//!   lumped onto the older read, with 96 reads per query time: reading every age lowers
//!   the wFN at 1/32 size by 2.1% (IBF3) and 1.3% (IBF2, IBF4), and 1024 reads
//!   ([`READS`]) are within 0.2% of it. And 4 query times: 16 ([`TIME_SAMPLES`]) lower
//!   IBF3 by another 1.3% at 1/32 size and 1.1% at m = 1024; 32 would take 0.4% more.
//!   Both together (the model now), wFN at 1/32 size: IBF3 0.3385 → 0.3275 (measured
//!   0.325 [0.299, 0.351]), IBF5 0.3732 → 0.3627 (0.360), IBF2 0.3663 → 0.3615 (0.283),
//!   IBF4 0.3317 → 0.3279 (0.253); at the thesis's size IBF3 0.342 → 0.336 (n = 262144)
//!   and 0.437 → 0.429 (n = 65536), IBF5 0.377 → 0.369. IBF3's FN of repeats at 1/32
//!   size is now 0.464 (it was 0.478), 3% above the measured 0.450 and below session
//!   14's independent-cells figure (0.476), so part of what session 14 read as the cells'
//!   correlation was these biases. Cost: 10-20% more (the backward passes). The start
//!   laws' [`SNAPSHOTS`] are not a third: a snapshot at every arrival moves the wFN by
//!   0.0001 (IBF3, IBF2).
//! * Own classes by *when* the item was last inserted (`Reductions::own_time_bins`: each
//!   count class split by which of `B` equal parts of the stream the last insertion fell
//!   in) barely move the wFN: with `B` = 4 and 16, at 1/32 size (4 query times, 96
//!   reads) IBF3 0.3385 → 0.3363, 0.3338; IBF5 0.3732 → 0.3707, 0.3677; IBF2 0.3663 →
//!   0.3661, 0.3656; IBF4 0.3317 → 0.3305, 0.3283, at 2-7 times the cost. IBF2 with 16
//!   parts and 16 count classes: 0.3624; 64 parts and 2 count classes: 0.3764. More
//!   count classes alone (8, 16, 32 instead of [`OWN_CLASSES`]): IBF3 0.3367, 0.3365,
//!   0.3365; IBF2 0.3635, 0.3631, 0.3631. So neither when the item was inserted before
//!   nor how often holds what the whole-history sampler conditions on (session 14: IBF2
//!   0.285); not kept in the model (1 part).
//! * Where it stands (the tables above): IBF3 inside the measured 99% interval in 6 of 6
//!   settings of `sbf-table4` at 1/32 size (at most 10.9% above the mean, n = 262144, k =
//!   8) and at the agreement setting; IBF5 in 4 of 6 (outside by at most 3.7% of the
//!   mean) and 0.01% above the agreement interval; MinImp in 3 (IBF2) and 2 (IBF4) of 6,
//!   up to 37% and 48% above the mean, and 2-3% above the agreement interval.
//!
//! Session 20 (issue 19 item 1, still open for MinImp; K = 4, Max = 4, P = 7, importance
//! 1..50, 70% repeats; the ignored tests `reductions_scan` and `history_features`
//! print these):
//! * MinImp's FN by importance is nearly a step at the thesis's items per cell. At 1/32
//!   size, with every importance tracked, IBF2's FN is 0.93 at importance 24, 0.57 at 28
//!   and 0.07 at 32. The model tracked 5 importances above the values below `Max` and
//!   interpolated the others linearly: that smeared the step over importances 16-39 and
//!   put the wFN 12% (IBF2: 0.3615 against 0.3221 with every importance) and 11% (IBF4:
//!   0.3279 against 0.2948) high. The Probabilistic-delete-p policies' FN falls smoothly
//!   (IBF3 1.6%, IBF5 1.0% high). [`TAGGED`] is now 16: within 1.3% of every importance
//!   for all four (IBF2 0.3197, IBF3 0.3228, IBF4 0.2985, IBF5 0.3593; 8, 10, 12 and 24
//!   give IBF2 0.3294, 0.3221, 0.3243, 0.3215), at 2.2 times the cost. At the thesis's
//!   size IBF2 0.342 → 0.308, IBF4 0.288 → 0.282, IBF3 0.336 → 0.331, IBF5 0.369 → 0.366.
//!   At m = 1024 (14 items per cell) the FN by importance is smooth and the change small
//!   and upward (IBF2 0.827 → 0.831, IBF4 0.817 → 0.822; IBF3, IBF5 unchanged).
//! * How it was found: the whole-history sampler ([`history_samples`]) uses this model's
//!   population and decrement laws, so its weighted mean zero probability of a repeat's
//!   cell, a linear quantity that no conditioning changes, must match this model's (the
//!   FN pass with `K` = 1, `Reductions::fn_k`). It did not: 8000 samples, seed 7, IBF2
//!   0.2299 against the model's 0.2419, IBF4 0.2079 against 0.2268, IBF3 0.1651 against
//!   0.1713. With every importance tracked the model gives 0.2299 (IBF2) and 0.2070
//!   (IBF4) against 0.2256 and 0.2030 (seed 8): within 2%.
//! * What is left for MinImp is the own history, and not the part of it tried so far.
//!   The sampler (40 000 samples, seed 7) gives IBF2 0.306 at 1/32 size, against this
//!   model's 0.320 and the measured 0.283. Its repeats grouped by features of their
//!   history, with an unbiased estimate of `f(E[z | group])` per group (`f(z) = 1 − (1 −
//!   z)^K` is a polynomial, so a U-statistic; groups of at least `K` samples), against
//!   `E[f(z)]` over the same samples: importance in pairs, query time in eighths and last
//!   insertion in sixteenths give 0.3432 against 0.3002; with the own count 0.3006 /
//!   0.2728 (a pseudo-random label of 4 levels instead: 0.3155 / 0.2731, the grouping
//!   alone changes nothing); with the gap to the previous own insertion instead 0.3099 /
//!   0.2779; with both 0.2891 / 0.2608; with the count and the birth 0.2911 / 0.2625. So
//!   the count takes about a third of the gap at this grouping, and neither the gap
//!   since the previous insertion nor the birth adds to it (session 19 found the same in
//!   the model with `own_time_bins`).
//! * And the own history is now the smaller part of MinImp's gap. With enough samples
//!   the sampler is above the measurement too: IBF2 0.306 (40 000 samples; session 14's
//!   0.285 ± 0.014 was from 1000) and IBF4 0.275 (8000, seed 8) against 0.283 and 0.253
//!   measured, 8% above, while this model is 4.5% (IBF2, 0.320) and 8.7% (IBF4, 0.299)
//!   above the sampler. IBF3's sampler is below the measurement (0.3125 against 0.325).
//!   So for MinImp what the sampler shares with this model (the population, the rank
//!   mean field's decrement law, cells independent given the history) is 8% off the
//!   filter: the next place to look.
//! * IBF3's excess at the thesis's size is not the read ages: 1024 and 8192 reads give
//!   0.3355 and 0.3348 (5 tracked importances). At the same items per cell the model's
//!   wFN grows with the size and levels off (IBF3, 5 tracked: 0.3021, 0.3275, 0.3343,
//!   0.3353, 0.3355 at 1/128, 1/32, 1/8, 1/2 and the full size), while the measurements
//!   at 1/32 and the full size (0.325 [0.299, 0.351], 0.318 [0.308, 0.325]) do not
//!   resolve a difference.
//! * Where it stands (the tables above): `sbf-table4` at 1/32 size, IBF3 inside in 6 of
//!   6 settings (−1.6% to +5.7% of the mean: no longer above in every one), IBF5 in 5 of
//!   6 (3.2% above where outside), IBF2 in 3 (up to 21% above, was 37%), IBF4 in 1 (up
//!   to 25%, was 48%; at n = 16384, about 7 items per cell, 5.5-6.5% above and just
//!   outside). At the thesis's size IBF3 is 4.0% above the measured mean (1.7% above the
//!   interval), IBF2 15% and IBF4 17%.
//!
//! Cost: `O(N·(2·S_p + S·(G·[`OWN_CLASSES`] + [`TIME_SAMPLES`]/2)))` for `S` states
//! (`(items_cap + 1)·(1 + Max·levels)`), `S_p` population states (`S` plus one block per
//! class and pair of classes, 63 more blocks of `1 + Max·levels`) and `G` tracked
//! importances. Criterion (`benches/stable.rs`, `stable/thesis_stream_1_32`: n = 8192,
//! 3125 arrivals, 2 cores): before session 14 at load about 6 IBF3 415 ms, IBF2 904 ms
//! (the per-cell-items SBF model: 77 ms); after it at load about 2.8 IBF3 380 ms, IBF2
//! 900 ms (SBF 36 ms). In one process (`fn_with_population_classes`) the population
//! classes cost 1.0-1.5 times the model without them. Full size (n = 262144, 100 000
//! arrivals) about 30 s per policy on a loaded machine. Session 20, 16 tracked
//! importances instead of 5 (one process, idle): 1/32 size 0.4-0.7 s → 1.0-1.4 s, full
//! size 10-21 s → 24-43 s per policy; [`stream_weighted_fp`](super::stream_weighted_fp)
//! skips the tracked importances and the FN pass.

// The chain operators index several parallel arrays by level and state.
#![allow(clippy::needless_range_loop)]

use super::params::IbfParams;
use super::policy::Delete;
use super::sbf::fn_from_zero;
use super::stream::RepeatStream;
use crate::error::{check, ModelError};
use crate::numeric::probability;

/// Counter values kept exactly (level = value).
pub const EXACT_LEVELS: u32 = 8;
/// Growth of the bin width above [`EXACT_LEVELS`].
pub const LEVEL_RATIO: f64 = 1.25;
/// Query times at which the FN of repeats is evaluated (the midpoints of equal parts of
/// the stream). Session 19: 4 put IBF3's wFN 1.3% (1/32 size) and 1.1% (m = 1024) above
/// 16, and 16 is within 0.4% of 32 (module doc); each costs a backward pass.
pub const TIME_SAMPLES: u64 = 16;
/// Ages (last-insertion times) read per query time; the weights of the ages in between
/// are lumped onto the next older read one, which biases the FN up (an older insertion
/// is likelier forgotten). Session 19: 96 reads put the wFN 1.3-2.1% above reading every
/// age (1/32 size); 1024 are within 0.2% of it and cost little (a dot product each).
pub const READS: u64 = 1024;
/// Snapshots of the forward law (start laws of repeats' cells).
pub const SNAPSHOTS: u64 = 256;
/// Largest `4·arrivals·(states·(2 + tracked importances·OWN_CLASSES + TIME_SAMPLES/2) +
/// MinImp rank-map states)` the model accepts (tens of seconds).
pub const WORK: u64 = 60_000_000_000;

/// Counter levels: level 0 is `c = 0`; levels `1..` cover `1..=C`.
#[derive(Debug, Clone)]
struct Levels {
    lo: Vec<u32>,
    hi: Vec<u32>,
    /// Mean counter of the level (its values taken as equally likely).
    rep: Vec<f64>,
    /// Mean of `1/c` over the level (0 for level 0).
    inv: Vec<f64>,
}

impl Levels {
    fn new(cap: u32, exact: u32, ratio: f64) -> Self {
        let mut l = Levels {
            lo: vec![0],
            hi: vec![0],
            rep: vec![0.0],
            inv: vec![0.0],
        };
        let mut push = |lo: u32, hi: u32| {
            l.lo.push(lo);
            l.hi.push(hi);
            l.rep.push(f64::from(lo + hi) / 2.0);
            l.inv
                .push((lo..=hi).map(|c| 1.0 / f64::from(c)).sum::<f64>() / f64::from(hi - lo + 1));
        };
        let mut c = 1;
        while c < cap {
            let w = if c <= exact {
                1
            } else {
                ((f64::from(c) * (ratio - 1.0)).round() as u32).max(1)
            };
            let h = (c + w - 1).min(cap - 1);
            push(c, h);
            c = h + 1;
        }
        push(cap, cap);
        l
    }

    fn len(&self) -> usize {
        self.rep.len()
    }

    /// The two levels a counter of (real) value `x ≥ 1` is split between, with weights
    /// that keep its mean.
    fn split(&self, x: f64) -> [(usize, f64); 2] {
        let last = self.len() - 1;
        if x >= self.rep[last] {
            return [(last, 1.0), (last, 0.0)];
        }
        // Largest j ≥ 1 with rep[j] ≤ x.
        let j = self
            .rep
            .partition_point(|&r| r <= x)
            .saturating_sub(1)
            .max(1);
        let f = ((x - self.rep[j]) / (self.rep[j + 1] - self.rep[j])).clamp(0.0, 1.0);
        [(j, 1.0 - f), (j + 1, f)]
    }
}

/// The joint law and its operators.
struct Model<'a> {
    params: &'a IbfParams,
    max: usize,
    nl: usize,
    cap: usize,
    a: f64,
    levels: Levels,
    /// Per level: `(state within a block, probability)` of a set, over the importance law.
    sets: Vec<Vec<(usize, f64)>>,
    /// Per level and importance index: the set's target levels.
    split: Vec<Vec<[(usize, f64); 2]>>,
    /// Per importance index: the value written.
    values: Vec<usize>,
    /// Importance classes of the population's single-item cells (0: none kept).
    classes: usize,
    /// Per class: its probability and, per level, its sets (the importance law
    /// restricted to the class), laid out like `sets`.
    class_w: Vec<f64>,
    class_sets: Vec<Vec<Vec<(usize, f64)>>>,
    /// Blocks of two-item cells kept by their pair of classes (0: none).
    pairs: usize,
    /// Per class pair `{a, b}`: its block among the pairs.
    pair_of: Vec<Vec<usize>>,
    /// Per pair block and level: half the sets of each class.
    pair_sets: Vec<Vec<Vec<(usize, f64)>>>,
    /// A chain in the (v, c) layout, for the MinImp rank map.
    chain: super::chain::CellChain,
}

impl<'a> Model<'a> {
    /// The model's operators, keeping `classes` importance classes of the population's
    /// one-item cells and, with `pairs`, pairs of them for two-item cells (see
    /// [`POP_CLASSES`]; 0 classes: every re-set draws from the whole law).
    fn with_classes(
        params: &'a IbfParams,
        cap: usize,
        exact: u32,
        ratio: f64,
        classes: usize,
        pairs: bool,
    ) -> Self {
        let max = params.max() as usize;
        let levels = Levels::new(params.counter_cap(), exact, ratio);
        let nl = levels.len();
        let dist = params.importance();
        let values: Vec<usize> = dist
            .iter()
            .map(|(i, _)| params.insert_value(i) as usize)
            .collect();
        let split: Vec<Vec<[(usize, f64); 2]>> = (0..nl)
            .map(|l| {
                dist.iter()
                    .map(|(i, _)| levels.split(levels.rep[l] + f64::from(i)))
                    .collect()
            })
            .collect();
        // The sets of the importances `js` (weights renormalised), per level.
        let sets_of = |js: &[usize]| -> Vec<Vec<(usize, f64)>> {
            let ws: Vec<f64> = dist.iter().map(|(_, w)| w).collect();
            let total: f64 = js.iter().map(|&j| ws[j]).sum();
            (0..nl)
                .map(|l| {
                    let mut acc = vec![0.0; (max + 1) * nl];
                    for &j in js {
                        for (t, p) in split[l][j] {
                            acc[values[j] * nl + t] += ws[j] / total * p;
                        }
                    }
                    acc.iter()
                        .enumerate()
                        .filter(|(_, &p)| p > 0.0)
                        .map(|(s, &p)| {
                            let (v, t) = (s / nl, s % nl);
                            (
                                if v == 0 {
                                    0
                                } else {
                                    1 + (t - 1) * max + (v - 1)
                                },
                                p,
                            )
                        })
                        .collect()
                })
                .collect()
        };
        let all: Vec<usize> = (0..values.len()).collect();
        let sets = sets_of(&all);
        // Contiguous classes of nearly equal numbers of importances (those of weight 0
        // dropped).
        let live: Vec<usize> = dist
            .iter()
            .enumerate()
            .filter(|(_, (_, w))| *w > 0.0)
            .map(|(j, _)| j)
            .collect();
        let classes = classes.min(live.len());
        let (mut class_w, mut class_sets) = (Vec::new(), Vec::new());
        for g in 0..classes {
            let js = &live[g * live.len() / classes..(g + 1) * live.len() / classes];
            class_w.push(
                js.iter()
                    .map(|&j| dist.iter().nth(j).map_or(0.0, |(_, w)| w))
                    .sum(),
            );
            class_sets.push(sets_of(js));
        }
        let pairs = pairs && classes > 0 && cap >= 3;
        let mut pair_of = vec![vec![0; classes]; classes];
        let mut pair_sets = Vec::new();
        if pairs {
            for g in 0..classes {
                for h in g..classes {
                    pair_of[g][h] = pair_sets.len();
                    pair_of[h][g] = pair_sets.len();
                    pair_sets.push(
                        (0..nl)
                            .map(|l| {
                                class_sets[g][l]
                                    .iter()
                                    .chain(&class_sets[h][l])
                                    .map(|&(s, p)| (s, p / 2.0))
                                    .collect()
                            })
                            .collect(),
                    );
                }
            }
        }
        Self {
            params,
            max,
            nl,
            cap,
            a: f64::from(params.k()) / params.m() as f64,
            levels,
            sets,
            split,
            values,
            classes,
            class_w,
            class_sets,
            pairs: pair_sets.len(),
            pair_of,
            pair_sets,
            chain: params.chain(|_, _| 0.0),
        }
    }

    /// Blocks of the population law: no item; one item of each class; with pairs, two
    /// items of each pair of classes; then `2..=cap` items (`3..=cap` with pairs). `cap +
    /// 1` blocks without classes.
    fn pop_blocks(&self) -> usize {
        if self.classes == 0 {
            return self.cap + 1;
        }
        1 + self.classes + self.pairs + self.cap + 1 - self.first_free()
    }

    /// The least item count of the blocks that keep no classes.
    fn first_free(&self) -> usize {
        if self.pairs > 0 {
            3
        } else {
            2
        }
    }

    /// Items in population block `kappa`.
    fn pop_n(&self, kappa: usize) -> usize {
        if self.classes == 0 || kappa == 0 {
            kappa
        } else if kappa <= self.classes {
            1
        } else if kappa <= self.classes + self.pairs {
            2
        } else {
            kappa - 1 - self.classes - self.pairs + self.first_free()
        }
    }

    /// The post-deletion columns per item count (`col`, for the tagged cells) from the
    /// population's per block (`colk`).
    fn marginal(&self, colk: &[f64], col: &mut [f64]) {
        col.iter_mut().for_each(|c| *c = 0.0);
        for (kappa, ck) in colk.chunks(self.nl).enumerate() {
            let n = self.pop_n(kappa);
            for (c, x) in col[n * self.nl..(n + 1) * self.nl].iter_mut().zip(ck) {
                *c += x;
            }
        }
    }

    /// The population's arrival (blocks of [`Model::pop_blocks`]): [`Model::arrive`],
    /// except that a cell holding one item (or, with pairs, two) is re-set by that item's
    /// importance class (one of the two, evenly), and a new item joining an empty cell
    /// (or, with pairs, a one-item cell) moves it to the block of its class.
    fn arrive_pop(&self, y: &[f64], colk: &[f64], pn: f64, rho: f64, out: &mut [f64]) {
        if self.classes == 0 {
            return self.arrive(y, colk, pn, rho, out);
        }
        let b = self.block();
        let last = self.pop_blocks() - 1;
        let (g1, g2) = (self.classes, self.classes + self.pairs);
        for kappa in 0..=last {
            let n = self.pop_n(kappa);
            let rep = (1.0 - pn) * (n as f64 * rho).min(1.0);
            let stay = 1.0 - pn * self.a - rep;
            for s in 0..b {
                out[kappa * b + s] = y[kappa * b + s] * stay;
            }
        }
        for kappa in 0..=last {
            let n = self.pop_n(kappa);
            let rep = (1.0 - pn) * (n as f64 * rho).min(1.0);
            let pa = pn * self.a;
            for l in 0..self.nl {
                let mass = colk[kappa * self.nl + l];
                if mass == 0.0 {
                    continue;
                }
                // A new item joins: the block its class leads to.
                if kappa == 0 || (kappa <= g1 && self.pairs > 0) {
                    for h in 0..self.classes {
                        let to = if kappa == 0 {
                            1 + h
                        } else {
                            1 + g1 + self.pair_of[kappa - 1][h]
                        };
                        let mh = mass * pa * self.class_w[h];
                        for &(s, p) in &self.class_sets[h][l] {
                            out[to * b + s] += mh * p;
                        }
                    }
                } else {
                    let up = if kappa <= g1 || kappa <= g2 {
                        g2 + 1
                    } else {
                        (kappa + 1).min(last)
                    };
                    for &(s, p) in &self.sets[l] {
                        out[up * b + s] += mass * pa * p;
                    }
                }
                // One of its items repeats.
                let re = if kappa == 0 {
                    continue;
                } else if kappa <= g1 {
                    &self.class_sets[kappa - 1][l]
                } else if kappa <= g2 {
                    &self.pair_sets[kappa - 1 - g1][l]
                } else {
                    &self.sets[l]
                };
                for &(s, p) in re {
                    out[kappa * b + s] += mass * rep * p;
                }
            }
        }
    }

    /// States per item count: the zero cell and `(v ≥ 1, ℓ ≥ 1)`.
    fn block(&self) -> usize {
        1 + self.max * (self.nl - 1)
    }

    fn states(&self) -> usize {
        self.block() * (self.cap + 1)
    }

    /// Index of `(v, ℓ)` within a block (`v = 0` is the zero cell).
    fn at(&self, v: usize, l: usize) -> usize {
        if v == 0 {
            0
        } else {
            1 + (l - 1) * self.max + (v - 1)
        }
    }

    /// The decrement probability per level from the law `x`.
    fn dec_law(&self, x: &[f64], out: &mut [f64]) {
        let (m, p) = (self.params.m() as f64, self.params.p() as f64);
        let b = self.block();
        let mut mass = vec![0.0; self.nl];
        for blk in x.chunks(b) {
            for l in 1..self.nl {
                mass[l] += blk[self.at(1, l)..self.at(1, l) + self.max]
                    .iter()
                    .sum::<f64>();
            }
        }
        out[0] = 0.0;
        match self.params.policy().delete() {
            Delete::MinImp => {
                let mut pi = vec![0.0; self.chain.states()];
                for l in 1..self.nl {
                    let (lo, hi) = (self.levels.lo[l], self.levels.hi[l]);
                    let share = mass[l] / f64::from(hi - lo + 1);
                    for c in lo..=hi {
                        pi[self.chain.encode(1, c)] += share;
                    }
                }
                let dc = super::minimp::rank_of(self.params, &self.chain, &pi);
                for l in 1..self.nl {
                    let (lo, hi) = (self.levels.lo[l], self.levels.hi[l]);
                    out[l] =
                        (lo..=hi).map(|c| dc[c as usize - 1]).sum::<f64>() / f64::from(hi - lo + 1);
                }
            }
            _ => {
                let wbar: f64 = (1..self.nl).map(|l| mass[l] * self.levels.inv[l]).sum();
                for l in 1..self.nl {
                    out[l] = if wbar > 0.0 {
                        (p * self.levels.inv[l] / (m * wbar)).min(1.0)
                    } else {
                        0.0
                    };
                }
            }
        }
    }

    /// The deletion phase: `y = x·D`.
    fn delete(&self, x: &[f64], d: &[f64], y: &mut [f64]) {
        let (b, max) = (self.block(), self.max);
        for (xb, yb) in x.chunks(b).zip(y.chunks_mut(b)) {
            // Level by level, values 1..=Max (states `at(1, l)..` of the level), the
            // zero cell's mass summed in level order.
            let (y0, ys) = yb.split_first_mut().expect("a block has the zero cell");
            let mut zero = xb[0];
            for ((xl, yl), &dl) in xb[1..]
                .chunks_exact(max)
                .zip(ys.chunks_exact_mut(max))
                .zip(&d[1..self.nl])
            {
                let dm = xl[0] * dl;
                yl[0] = xl[0] - dm;
                zero += dm;
                // The lower value of the level was filled just before.
                for v in 1..max {
                    let dm = xl[v] * dl;
                    yl[v] = xl[v] - dm;
                    yl[v - 1] += dm;
                }
            }
            *y0 = zero;
        }
    }

    /// Post-deletion mass per `(n, ℓ)` (values summed: a set overwrites the value).
    fn columns(&self, y: &[f64], col: &mut [f64]) {
        let b = self.block();
        for (n, yb) in y.chunks(b).enumerate() {
            let c = &mut col[n * self.nl..(n + 1) * self.nl];
            c[0] = yb[0];
            for l in 1..self.nl {
                c[l] = yb[self.at(1, l)..self.at(1, l) + self.max].iter().sum();
            }
        }
    }

    /// The arrival: `x = y·A` with new-item probability `pn` and per-item repeat
    /// probability `rho` (a cell with `n` items is re-set with probability `(1 − pn)·min(1, n·rho)`).
    fn arrive(&self, y: &[f64], col: &[f64], pn: f64, rho: f64, out: &mut [f64]) {
        let b = self.block();
        for n in 0..=self.cap {
            let rep = (1.0 - pn) * (n as f64 * rho).min(1.0);
            let stay = 1.0 - pn * self.a - rep;
            for s in 0..b {
                out[n * b + s] = y[n * b + s] * stay;
            }
        }
        for n in 0..=self.cap {
            let rep = (1.0 - pn) * (n as f64 * rho).min(1.0);
            let up = (n + 1).min(self.cap);
            for l in 0..self.nl {
                let mass = col[n * self.nl + l];
                if mass == 0.0 {
                    continue;
                }
                for &(s, p) in &self.sets[l] {
                    out[up * b + s] += mass * pn * self.a * p;
                    out[n * b + s] += mass * rep * p;
                }
            }
        }
    }

    /// One backward step through arrival `u` (decrement law `d`): `b ← T_u·b`, the tagged
    /// item's own repeats excluded.
    fn backward(&self, bvec: &mut [f64], d: &[f64], pn: f64, rho: f64, scratch: &mut Vec<f64>) {
        let b = self.block();
        // G(n, ℓ) = E[b after a set | level ℓ, count n].
        let mut g = vec![0.0; (self.cap + 1) * self.nl];
        for n in 0..=self.cap {
            for l in 0..self.nl {
                g[n * self.nl + l] = self.sets[l].iter().map(|&(s, p)| p * bvec[n * b + s]).sum();
            }
        }
        scratch.resize(bvec.len(), 0.0);
        for n in 0..=self.cap {
            let rep = (1.0 - pn) * ((n as f64 - 1.0).max(0.0) * rho).min(1.0);
            let stay = 1.0 - pn * self.a - rep;
            let up = (n + 1).min(self.cap);
            // State `s` of the block is at level 0 (the zero cell) or `(s − 1)/Max + 1`.
            let (gu, gn) = (&g[up * self.nl..], &g[n * self.nl..]);
            let (sb, bb) = (&mut scratch[n * b..(n + 1) * b], &bvec[n * b..(n + 1) * b]);
            sb[0] = stay * bb[0] + pn * self.a * gu[0] + rep * gn[0];
            for (l, (sl, bl)) in sb[1..]
                .chunks_exact_mut(self.max)
                .zip(bb[1..].chunks_exact(self.max))
                .enumerate()
            {
                let (gul, gnl) = (gu[l + 1], gn[l + 1]);
                for (sv, &bv) in sl.iter_mut().zip(bl) {
                    *sv = stay * bv + pn * self.a * gul + rep * gnl;
                }
            }
        }
        for n in 0..=self.cap {
            let (ab, pb) = (&scratch[n * b..(n + 1) * b], &mut bvec[n * b..(n + 1) * b]);
            pb[0] = ab[0];
            for (l, (al, pl)) in ab[1..]
                .chunks_exact(self.max)
                .zip(pb[1..].chunks_exact_mut(self.max))
                .enumerate()
            {
                let dl = d[l + 1];
                // Value 1 falls to the zero cell, value `v` to `v − 1` of the level.
                pl[0] = dl * ab[0] + (1.0 - dl) * al[0];
                for v in 1..self.max {
                    pl[v] = dl * al[v - 1] + (1.0 - dl) * al[v];
                }
            }
        }
    }
}

/// Counter levels and item cap of a run (for [`super::StreamMethod`]).
pub(crate) fn level_count(params: &IbfParams) -> usize {
    Levels::new(params.counter_cap(), EXACT_LEVELS, LEVEL_RATIO).len()
}

/// The model of the module doc. Returns `(wFP, FN by importance, final zero fraction)`.
///
/// # Errors
/// The run would exceed [`WORK`].
pub(crate) fn counter_items(
    params: &IbfParams,
    stream: &RepeatStream,
    cap: usize,
) -> Result<(f64, Vec<f64>, f64), ModelError> {
    run(params, stream, cap, &Reductions::DEFAULT)
}

/// [`counter_items`]' wFP and final zero fraction alone: the forward pass of the
/// population, without the tracked importances and the FN pass (a fraction of the cost).
///
/// # Errors
/// The run would exceed [`WORK`].
pub(crate) fn counter_items_fp(
    params: &IbfParams,
    stream: &RepeatStream,
    cap: usize,
) -> Result<(f64, f64), ModelError> {
    let red = Reductions {
        fn_pass: false,
        ..Reductions::DEFAULT
    };
    run(params, stream, cap, &red).map(|(wfp, _, z)| (wfp, z))
}

/// The reductions of the model (see the module doc); tests measure their error.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reductions {
    /// Counter values kept exactly.
    pub exact: u32,
    /// Growth of the bin width above `exact`.
    pub ratio: f64,
    /// Query times.
    pub samples: u64,
    /// Ages read per query time ([`READS`]).
    pub reads: u64,
    /// Importances tracked exactly above the values below `Max`.
    pub tagged: u64,
    /// Classes of a repeat's own insertion count (`1, 2, …, ≥ own_classes`).
    pub own_classes: u64,
    /// Experiment (issue 19 item 1, session 19): each own-count class also split by the
    /// bin (of `own_time_bins` equal bins of the stream) of the item's last insertion, so
    /// that a repeat's start law is conditioned on when the item was inserted before it
    /// (1 in the model). With one count class the start laws of repeats from the current
    /// bin share the class of new items: use at least two.
    pub own_time_bins: usize,
    /// Experiment (issue 19 item 1): the tagged item's cells decremented with their own
    /// `K` weights added to the pool, `min(1, P·w(ℓ)/(m·W̄_u + K·w(ℓ)))`.
    pub self_weight: bool,
    /// Experiment (issue 19 item 1, session 14): the pool weight `m·W̄_u` multiplied by
    /// this (1 in the model).
    pub w_scale: f64,
    /// Importance classes of the population's single-item cells ([`POP_CLASSES`]; 0:
    /// every re-set draws from the whole importance law, the model before session 14).
    pub pop_classes: usize,
    /// Two-item cells kept by their pair of classes too ([`POP_PAIRS`]).
    pub pop_pairs: bool,
    /// Whether to track importances and compute the FN (false: wFP and zero fraction
    /// only, [`counter_items_fp`]; the FN by importance comes back empty).
    pub fn_pass: bool,
    /// Experiment (issue 19 item 1, session 20): the FN pass's `K` replaced by this
    /// (`Some(1)`: the mean zero probability of a repeat's cell, a linear quantity).
    pub fn_k: Option<u32>,
}

impl Reductions {
    /// [`EXACT_LEVELS`], [`LEVEL_RATIO`], [`TIME_SAMPLES`], [`TAGGED`].
    pub const DEFAULT: Reductions = Reductions {
        exact: EXACT_LEVELS,
        ratio: LEVEL_RATIO,
        samples: TIME_SAMPLES,
        reads: READS,
        tagged: TAGGED,
        own_classes: OWN_CLASSES,
        own_time_bins: 1,
        self_weight: false,
        w_scale: 1.0,
        pop_classes: POP_CLASSES,
        pop_pairs: POP_PAIRS,
        fn_pass: true,
        fn_k: None,
    };
}

/// [`counter_items`] with explicit reductions (tests measure their error).
pub(crate) fn run(
    params: &IbfParams,
    stream: &RepeatStream,
    cap: usize,
    red: &Reductions,
) -> Result<(f64, Vec<f64>, f64), ModelError> {
    run_probed(params, stream, cap, red, None)
}

/// Bins of a repeat's cell's counter just before its last insertion set it (`c − i`):
/// 0, 1-8, 9-25, 26-50, 51-100, > 100 (the filter diagnostic `start_law_diagnostic` in
/// `validation/src/experiments/stable.rs` uses the same).
#[cfg(test)]
const PROBE_BINS: [f64; 5] = [0.5, 8.5, 25.5, 50.5, 100.5];

/// What [`run_probed`] records per query time, read age, tracked importance and own
/// class (issue 19, session 14): the age weight, and per bin of [`PROBE_BINS`] the start
/// mass and the start mass times the cell's zero probability at the query.
#[cfg(test)]
#[derive(Debug, Clone)]
pub(crate) struct ProbeRow {
    pub time: usize,
    pub weight: f64,
    pub importance: u32,
    pub class: usize,
    pub mass: [f64; 6],
    pub zmass: [f64; 6],
    /// Start mass times the start counter.
    pub cmass: f64,
}

#[cfg(not(test))]
type ProbeRow = ();

/// [`run`], recording [`ProbeRow`]s when `probe` is given.
#[cfg_attr(not(test), allow(unused_variables, unused_mut))]
fn run_probed(
    params: &IbfParams,
    stream: &RepeatStream,
    cap: usize,
    red: &Reductions,
    mut probe: Option<&mut Vec<ProbeRow>>,
) -> Result<(f64, Vec<f64>, f64), ModelError> {
    let md = Model::with_classes(
        params,
        cap,
        red.exact,
        red.ratio,
        red.pop_classes,
        red.pop_pairs,
    );
    let samples = red.samples;
    let big_n = stream.arrivals() as usize;
    let r = stream.duplicate_rate();
    let k = params.k();
    let states = md.states();
    let groups = if red.fn_pass {
        tagged_importances(&md, red.tagged)
    } else {
        Vec::new()
    };
    let counts = red.own_classes.max(1) as usize;
    let bins = red.own_time_bins.clamp(1, big_n);
    let classes = counts * bins;
    // Class `q` is (bin of the last own insertion `q / counts`, own count `q % counts`);
    // an own repeat in bin `now` takes it to `to(q, now)`. The start law of that repeat
    // is kept in class `start(q)`: by the bin of the insertion before it. With one bin
    // these are the count classes alone.
    let up = |q: usize| (q % counts + 1).min(counts - 1);
    let to = |q: usize, now: usize| now * counts + up(q);
    let start = |q: usize| q - q % counts + up(q);
    let rank = if params.policy().delete() == Delete::MinImp {
        md.chain.states() as u64
    } else {
        0
    };
    let pop_states = md.pop_blocks() * md.block();
    let work = (pop_states as u64 * 2
        + states as u64 * (groups.len() as u64 * classes as u64 + samples / 2)
        + rank)
        * 4;
    check::in_range("arrivals", stream.arrivals(), 2..=WORK / work.max(1))?;
    let nl = md.nl;
    let b = md.block();
    let d_before = |u: usize| stream.distinct_before(u);
    let p_new = |u: usize| stream.p_new(u);
    let rho = |u: usize| per_item_rate(stream, u);
    // Forward pass: the population law `x` and, per tracked importance, the pool law
    // `xt` of a cell of a uniformly chosen earlier item of that importance.
    let mut x = vec![0.0; pop_states];
    x[0] = 1.0;
    let mut y = vec![0.0; pop_states];
    let mut col = vec![0.0; (md.cap + 1) * nl];
    let mut colk = vec![0.0; md.pop_blocks() * nl];
    let mut xt = vec![vec![vec![0.0; states]; classes]; groups.len()];
    let (mut yt, mut colt) = (vec![0.0; states], col.clone());
    let mut outs = vec![vec![0.0; states]; classes];
    let mut own_acc = vec![vec![0.0; states]; classes];
    let mut dec = vec![0.0; big_n * nl];
    let mut dself = vec![0.0; big_n * nl];
    let snap_every = (big_n as u64).div_ceil(SNAPSHOTS).max(1) as usize;
    // Per snapshot, group and own-insertion class: the start law (unnormalised, its mass
    // the class's probability) of a repeat's cell right after its last insertion, over
    // (n, ℓ) at v = ins(i).
    let mut snaps: Vec<Vec<Vec<Vec<f64>>>> = Vec::new();
    #[cfg(test)]
    let mut snaps_binned: Vec<Vec<Vec<Vec<Vec<f64>>>>> = Vec::new();
    let (mut fp_num, mut fp_den) = (0.0, 0.0);
    for u in 0..big_n {
        let zero: f64 = x.chunks(b).map(|blk| blk[0]).sum();
        fp_num += p_new(u) * (1.0 - zero.min(1.0)).powi(k as i32);
        fp_den += p_new(u);
        let d = &mut dec[u * nl..(u + 1) * nl];
        md.dec_law(&x, d);
        if red.w_scale != 1.0 && md.params.policy().delete() != Delete::MinImp {
            d.iter_mut().for_each(|v| {
                if *v < 1.0 {
                    *v /= red.w_scale;
                }
            });
        }
        let d = &dec[u * nl..(u + 1) * nl];
        md.delete(&x, d, &mut y);
        {
            let ds = &mut dself[u * nl..(u + 1) * nl];
            ds.copy_from_slice(d);
            if red.self_weight && md.params.policy().delete() != Delete::MinImp {
                let (p, kk) = (md.params.p() as f64, f64::from(k));
                for l in 1..nl {
                    if d[l] > 0.0 && d[l] < 1.0 {
                        let inv = md.levels.inv[l];
                        let mw = p * inv / d[l];
                        ds[l] = (p * inv / (mw + kk * inv)).min(1.0);
                    }
                }
            }
        }
        let ds = &dself[u * nl..(u + 1) * nl];
        md.columns(&y, &mut colk);
        md.marginal(&colk, &mut col);
        let (pn, rh, dd) = (p_new(u), rho(u), d_before(u));
        let snap = u % snap_every == 0;
        let rs = if u == 0 { 0.0 } else { r };
        let mut starts = Vec::new();
        #[cfg(test)]
        let mut binned = Vec::new();
        let now = u * bins / big_n;
        let active = (now + 1) * counts;
        for (g, &j) in groups.iter().enumerate() {
            #[cfg(test)]
            let xt_before = if snap && probe.is_some() {
                xt[g].clone()
            } else {
                Vec::new()
            };
            // The new item's cell: a population cell, set with i, one more item.
            let fresh = md.set_with(&col, j, 1);
            let mut st = vec![vec![0.0; fresh.len()]; classes];
            if snap {
                st[now * counts] = fresh.iter().map(|f| (1.0 - rs) * f).collect();
            }
            own_acc[..active]
                .iter_mut()
                .for_each(|o| o.iter_mut().for_each(|z| *z = 0.0));
            for q in 0..active {
                md.delete(&xt[g][q], ds, &mut yt);
                md.columns(&yt, &mut colt);
                if snap {
                    let own = md.set_with(&colt, j, 0);
                    for (a, o) in st[start(q)].iter_mut().zip(&own) {
                        *a += rs * o;
                    }
                }
                // Others' arrivals stay in the class; the item's own repeat moves it up.
                let moved = &mut own_acc[to(q, now)];
                md.arrive_tagged(&yt, &colt, pn, rh, j, &mut outs[q], moved);
            }
            let v = md.values[j];
            let total = dd + pn;
            for q in 0..active {
                for ((o, a), xo) in outs[q].iter().zip(&own_acc[q]).zip(xt[g][q].iter_mut()) {
                    *xo = (o + a) * dd / total;
                }
            }
            for n in 0..=md.cap {
                for l in 0..nl {
                    xt[g][now * counts][n * b + md.at(v, l.max(1))] +=
                        fresh[n * nl + l] * pn / total;
                }
            }
            if snap {
                #[cfg(test)]
                if probe.is_some() {
                    // The start law split by the bin of the counter before the set.
                    let mut sb = vec![vec![vec![0.0; fresh.len()]; 6]; classes];
                    let bin_of =
                        |l: usize| PROBE_BINS.iter().filter(|&&x| md.levels.rep[l] > x).count();
                    for bin in 0..6 {
                        let mut c0 = col.clone();
                        for n in 0..=md.cap {
                            for l in 0..nl {
                                if bin_of(l) != bin {
                                    c0[n * nl + l] = 0.0;
                                }
                            }
                        }
                        let fresh_class = &mut sb[now * counts][bin];
                        for (a, f) in fresh_class.iter_mut().zip(md.set_with(&c0, j, 1)) {
                            *a = (1.0 - rs) * f;
                        }
                        for q in 0..active {
                            let up = start(q);
                            md.delete(&xt_before[q], ds, &mut yt);
                            md.columns(&yt, &mut colt);
                            for n in 0..=md.cap {
                                for l in 0..nl {
                                    if bin_of(l) != bin {
                                        colt[n * nl + l] = 0.0;
                                    }
                                }
                            }
                            for (a, o) in sb[up][bin].iter_mut().zip(md.set_with(&colt, j, 0)) {
                                *a += rs * o;
                            }
                        }
                    }
                    binned.push(sb);
                }
                starts.push(st);
            }
        }
        if snap {
            snaps.push(starts);
            #[cfg(test)]
            snaps_binned.push(std::mem::take(&mut binned));
        }
        md.arrive_pop(&y, &colk, pn, rh, &mut x);
    }
    let wfp = probability(fp_num / fp_den);
    let zero_final: f64 = x.chunks(b).map(|blk| blk[0]).sum();
    if !red.fn_pass {
        return Ok((wfp, Vec::new(), zero_final));
    }
    // Backward passes.
    let lw = stream.log_weights();
    let queries = (big_n - 1) as u64;
    let count = queries.min(samples);
    let mut acc_g = vec![0.0; groups.len()];
    let mut scratch = Vec::new();
    for j in 0..count {
        let t = 1 + ((j as f64 + 0.5) * queries as f64 / count as f64) as usize;
        let top = lw[t - 1];
        let total: f64 = lw[..t].iter().map(|&l| (l - top).exp()).sum();
        let stride = (t as u64).div_ceil(red.reads).max(1) as usize;
        let mut bv = vec![0.0; states];
        for n in 0..=md.cap {
            bv[n * b] = 1.0;
        }
        let mut acc = vec![0.0; groups.len()];
        let mut pending = 0.0;
        for l in (0..t).rev() {
            pending += (lw[l] - top).exp() / total;
            if l % stride == 0 && pending > 1e-300 {
                let starts = &snaps[l / snap_every];
                for (g, &jj) in groups.iter().enumerate() {
                    let v = md.values[jj];
                    for st in &starts[g] {
                        let mass: f64 = st.iter().sum();
                        if mass <= 0.0 {
                            continue;
                        }
                        let mut z = 0.0;
                        for n in 0..=md.cap {
                            for lv in 1..nl {
                                z += st[n * nl + lv] * bv[n * b + md.at(v, lv)];
                            }
                        }
                        let fn_k = red.fn_k.unwrap_or(k);
                        acc[g] += pending * mass * fn_from_zero((z / mass).min(1.0), fn_k);
                    }
                    #[cfg(test)]
                    if let Some(rows) = probe.as_deref_mut() {
                        for (q, sb) in snaps_binned[l / snap_every][g].iter().enumerate() {
                            let mut row = ProbeRow {
                                time: j as usize,
                                weight: pending,
                                importance: params.importance().lo() + jj as u32,
                                class: q,
                                mass: [0.0; 6],
                                zmass: [0.0; 6],
                                cmass: 0.0,
                            };
                            for (bin, st) in sb.iter().enumerate() {
                                for n in 0..=md.cap {
                                    for lv in 1..nl {
                                        let w = st[n * nl + lv];
                                        row.mass[bin] += w;
                                        row.zmass[bin] += w * bv[n * b + md.at(v, lv)];
                                        row.cmass += w * md.levels.rep[lv];
                                    }
                                }
                            }
                            rows.push(row);
                        }
                    }
                }
                pending = 0.0;
            }
            if l == 0 {
                break;
            }
            md.backward(
                &mut bv,
                &dself[l * nl..(l + 1) * nl],
                p_new(l),
                rho(l),
                &mut scratch,
            );
        }
        for (f, a) in acc_g.iter_mut().zip(&acc) {
            *f += a / count as f64;
        }
    }
    // Importances between tracked ones: linear interpolation (they write the same value).
    let nimp = md.values.len();
    let mut fns = vec![0.0; nimp];
    for w in 0..groups.len() {
        fns[groups[w]] = acc_g[w];
        if w + 1 < groups.len() {
            let (j0, j1) = (groups[w], groups[w + 1]);
            for jj in j0 + 1..j1 {
                let f = (jj - j0) as f64 / (j1 - j0) as f64;
                fns[jj] = acc_g[w] + f * (acc_g[w + 1] - acc_g[w]);
            }
        }
    }
    Ok((wfp, fns.into_iter().map(probability).collect(), zero_final))
}

/// `1/D(u)`: the chance that a repeat at arrival `u` is of a given earlier item (0 before
/// the first arrival).
fn per_item_rate(stream: &RepeatStream, u: usize) -> f64 {
    let d = stream.distinct_before(u);
    if d > 0.0 {
        1.0 / d
    } else {
        0.0
    }
}

/// Importance indices whose repeats are modelled exactly: every importance that writes a
/// value below `Max` (Imp-insert), and [`TAGGED`] evenly spaced over the rest (the FN of
/// the others is interpolated).
fn tagged_importances(md: &Model<'_>, tagged: u64) -> Vec<usize> {
    let n = md.values.len();
    let mut out: Vec<usize> = (0..n).filter(|&j| md.values[j] < md.max).collect();
    let first = out.len();
    if first < n {
        let span = n - 1 - first;
        let picks = (tagged as usize).min(span + 1);
        for q in 0..picks {
            let j = if picks == 1 {
                first
            } else {
                first + (q * span + (picks - 1) / 2) / (picks - 1)
            };
            if out.last() != Some(&j) {
                out.push(j);
            }
        }
        if out.last() != Some(&(n - 1)) {
            out.push(n - 1);
        }
    }
    out
}

/// Importances tracked exactly above the values below `Max` (the FN of the others is
/// interpolated linearly). Session 20: MinImp's FN by importance is nearly a step (at
/// 1/32 of the thesis's size, IBF2 0.93 at importance 24 to 0.07 at 32), which 5 tracked
/// importances smeared over 16-39, putting its wFN 12% (IBF2) and 11% (IBF4) above
/// tracking every importance; 16 are within 1.3% of it for every policy (module doc), at
/// about 2.2 times the cost of 5.
pub const TAGGED: u64 = 16;
/// Importance classes kept for the population's cells that hold a single item (module
/// doc, session 14): such a cell is only ever re-set by that item, so its counter grows
/// by that item's importance, not by draws from the whole law.
pub const POP_CLASSES: usize = 10;
/// Whether the population's two-item cells keep their pair of importance classes.
pub const POP_PAIRS: bool = true;
/// Classes of an item's own insertion count kept apart (its `K` cells share it).
pub const OWN_CLASSES: u64 = 4;

impl Model<'_> {
    /// The law over `(n, ℓ)` (at `v = ins(i)`) of a cell whose post-deletion column law is
    /// `col`, set by importance index `j`, its item count raised by `extra`.
    fn set_with(&self, col: &[f64], j: usize, extra: usize) -> Vec<f64> {
        let nl = self.nl;
        let mut out = vec![0.0; (self.cap + 1) * nl];
        for n in 0..=self.cap {
            let to = (n + extra).min(self.cap);
            for l in 0..nl {
                let mass = col[n * nl + l];
                if mass == 0.0 {
                    continue;
                }
                for (t, p) in self.split[l][j] {
                    out[to * nl + t] += mass * p;
                }
            }
        }
        out
    }

    /// The arrival for a cell holding the tagged item (importance index `j`): new items
    /// (`pn·a`, one more item), the others' repeats (`(1 − pn)·(n − 1)·rho`) and its own
    /// (`(1 − pn)·rho`, set with `j`).
    #[allow(clippy::too_many_arguments)]
    fn arrive_tagged(
        &self,
        y: &[f64],
        col: &[f64],
        pn: f64,
        rho: f64,
        j: usize,
        out: &mut [f64],
        own_out: &mut [f64],
    ) {
        let b = self.block();
        let v = self.values[j];
        for n in 0..=self.cap {
            let others = (1.0 - pn) * ((n as f64 - 1.0).max(0.0) * rho).min(1.0);
            let own = ((1.0 - pn) * rho).min(1.0 - others);
            let stay = 1.0 - pn * self.a - others - own;
            for s in 0..b {
                out[n * b + s] = y[n * b + s] * stay;
            }
        }
        for n in 0..=self.cap {
            let others = (1.0 - pn) * ((n as f64 - 1.0).max(0.0) * rho).min(1.0);
            let own = ((1.0 - pn) * rho).min(1.0 - others);
            let up = (n + 1).min(self.cap);
            for l in 0..self.nl {
                let mass = col[n * self.nl + l];
                if mass == 0.0 {
                    continue;
                }
                for &(s, p) in &self.sets[l] {
                    out[up * b + s] += mass * pn * self.a * p;
                    out[n * b + s] += mass * others * p;
                }
                for (t, p) in self.split[l][j] {
                    own_out[n * b + self.at(v, t)] += mass * own * p;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stable::{zero_fraction_transient, ImportanceDist, Policy};
    use approx::assert_relative_eq;

    fn params(policy: Policy, m: u64) -> IbfParams {
        IbfParams::new(policy, m, 4, 3, 6, ImportanceDist::linear(1, 50).unwrap()).unwrap()
    }

    #[test]
    fn levels_cover_the_counter_and_keep_the_mean() {
        let l = Levels::new(255, EXACT_LEVELS, LEVEL_RATIO);
        assert_eq!(l.lo[1], 1);
        assert_eq!(*l.hi.last().unwrap(), 255);
        for j in 1..l.len() - 1 {
            assert_eq!(l.hi[j] + 1, l.lo[j + 1]);
        }
        for x in [1.0, 7.5, 13.2, 100.0, 254.9] {
            let [(a, p), (b, q)] = l.split(x);
            assert_relative_eq!(p + q, 1.0);
            assert_relative_eq!(p * l.rep[a] + q * l.rep[b], x, max_relative = 1e-12);
        }
        assert_eq!(l.split(300.0)[0].0, l.len() - 1);
        // Every level exact: 256 levels.
        assert_eq!(Levels::new(255, 255, LEVEL_RATIO).len(), 256);
    }

    #[test]
    fn without_repeats_and_with_exact_levels_it_is_the_transient() {
        // No repeats: sets hit every cell at rate K/m whatever its items, so the zero
        // fraction is the time-stepped mean field of `zero_fraction_transient`.
        for policy in [Policy::Ibf3, Policy::Ibf5, Policy::Ibf2, Policy::Ibf4] {
            let p = params(policy, 256);
            let n = 600;
            let stream = RepeatStream::new(n, 0.0).unwrap();
            let red = Reductions {
                exact: 255,
                samples: 1,
                ..Reductions::DEFAULT
            };
            let (_, _, z) = run(&p, &stream, 4, &red).unwrap();
            let want = zero_fraction_transient(&p, n).unwrap()[n as usize];
            assert_relative_eq!(z, want, max_relative = 1e-9);
        }
    }

    #[test]
    fn the_wfp_alone_is_the_wfp_of_the_whole_model() {
        let stream = RepeatStream::new(400, 0.7).unwrap();
        for policy in [Policy::Ibf2, Policy::Ibf3, Policy::Sbf] {
            let p = params(policy, 256);
            let whole = crate::stable::stream_metrics(&p, &stream)
                .unwrap()
                .weighted_fp;
            let alone = crate::stable::stream_weighted_fp(&p, &stream).unwrap();
            assert_eq!(alone.to_bits(), whole.to_bits(), "{policy}");
        }
    }

    /// One sample of [`history_samples`]: the repeat's `1 − (1 − z)^K`, its cell's zero
    /// probability `z` at the query, and its history.
    #[derive(Debug, Clone, Copy)]
    struct HistorySample {
        fn_h: f64,
        z: f64,
        /// Importance index.
        j: usize,
        /// Query time, birth, last insertion before the query.
        t: usize,
        s: usize,
        last: usize,
        /// The own insertion before `last` (`None`: `last` is the birth).
        prev: Option<usize>,
        /// Own insertions before the query (the birth included).
        count: usize,
    }

    /// Issue 19 item 1 (a measurement, not a model): the weighted FN of repeats with an
    /// item's `K` cells conditioned on its *whole* own-insertion history, sampled
    /// (`samples` repeats; importance drawn ∝ `w_i·i`, query time uniform, birth ∝ the
    /// new-item rate, own repeats at rate `r/D(u)`), each cell's law then carried forward
    /// under the model's stored decrement laws with the other items' arrivals averaged, so
    /// the cells are independent given the history: `FN = E_h[1 − (1 − z_h)^K]`. With
    /// `mixed` the own repeats are averaged too (the cells independent given importance,
    /// birth and query time only). Returns the samples with their histories; the mean of
    /// their `1 − (1 − z_h)^K` is the wFN. `(classes, pairs)`: the population's
    /// importance classes (`(0, false)`: the model before session 14, as in the session
    /// 10 numbers). Session 20 added the histories ([`HistorySample`]).
    #[allow(clippy::too_many_arguments)]
    fn history_samples(
        params: &IbfParams,
        stream: &RepeatStream,
        cap: usize,
        samples: usize,
        seed: u64,
        mixed: bool,
        (classes, pairs): (usize, bool),
    ) -> Vec<HistorySample> {
        use rand::{Rng, SeedableRng};
        let md = Model::with_classes(params, cap, EXACT_LEVELS, LEVEL_RATIO, classes, pairs);
        let big_n = stream.arrivals() as usize;
        let (nl, b, states) = (md.nl, md.block(), md.states());
        let ncol = (md.cap + 1) * nl;
        let rho = |u: usize| per_item_rate(stream, u);
        let mut x = vec![0.0; md.pop_blocks() * b];
        x[0] = 1.0;
        let mut yp = x.clone();
        let mut colk = vec![0.0; md.pop_blocks() * nl];
        let mut y = vec![0.0; states];
        let mut dec = vec![0.0; big_n * nl];
        let mut cols = vec![0.0; big_n * ncol];
        for u in 0..big_n {
            md.dec_law(&x, &mut dec[u * nl..(u + 1) * nl]);
            md.delete(&x, &dec[u * nl..(u + 1) * nl], &mut yp);
            md.columns(&yp, &mut colk);
            md.marginal(&colk, &mut cols[u * ncol..(u + 1) * ncol]);
            md.arrive_pop(&yp, &colk, stream.p_new(u), rho(u), &mut x);
        }
        let weights: Vec<f64> = params
            .importance()
            .iter()
            .map(|(i, w)| w * f64::from(i))
            .collect();
        let total: f64 = weights.iter().sum();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        // The own repeats from their own generator: with the same seed, `mixed` and the
        // whole history query the same (importance, birth, time) samples.
        let mut hist = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5EED);
        let (mut w, mut out, mut own_out) =
            (vec![0.0; states], vec![0.0; states], vec![0.0; states]);
        let mut colt = vec![0.0; ncol];
        let k = params.k();
        let mut fns = Vec::with_capacity(samples);
        let place = |w: &mut [f64], law: &[f64], v: usize| {
            w.iter_mut().for_each(|a| *a = 0.0);
            for n in 0..=md.cap {
                for l in 0..nl {
                    w[n * b + md.at(v, l.max(1))] += law[n * nl + l];
                }
            }
        };
        for _ in 0..samples {
            let t = rng.random_range(1..big_n);
            let s = if rng.random::<f64>() < 1.0 / stream.distinct_before(t) {
                0
            } else {
                rng.random_range(1..t)
            };
            let mut u01 = rng.random::<f64>() * total;
            let mut j = weights.len() - 1;
            for (q, &wq) in weights.iter().enumerate() {
                if u01 < wq {
                    j = q;
                    break;
                }
                u01 -= wq;
            }
            let v = md.values[j];
            place(
                &mut w,
                &md.set_with(&cols[s * ncol..(s + 1) * ncol], j, 1),
                v,
            );
            let (mut last, mut prev, mut count) = (s, None, 1);
            for u in s + 1..t {
                let (pn, rh) = (stream.p_new(u), rho(u));
                md.delete(&w, &dec[u * nl..(u + 1) * nl], &mut y);
                md.columns(&y, &mut colt);
                own_out.iter_mut().for_each(|a| *a = 0.0);
                md.arrive_tagged(&y, &colt, pn, rh, j, &mut out, &mut own_out);
                if mixed {
                    for ((a, o), q) in w.iter_mut().zip(&out).zip(&own_out) {
                        *a = o + q;
                    }
                } else if hist.random::<f64>() < (1.0 - pn) * rh {
                    place(&mut w, &md.set_with(&colt, j, 0), v);
                    (prev, last, count) = (Some(last), u, count + 1);
                } else {
                    let tot: f64 = out.iter().sum();
                    for (a, o) in w.iter_mut().zip(&out) {
                        *a = o / tot;
                    }
                }
            }
            let z = w.chunks(b).map(|blk| blk[0]).sum::<f64>().clamp(0.0, 1.0);
            fns.push(HistorySample {
                fn_h: fn_from_zero(z, k),
                z,
                j,
                t,
                s,
                last,
                prev,
                count,
            });
        }
        fns
    }

    /// Mean and standard error.
    fn mean_se(x: &[f64]) -> (f64, f64) {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, (var / n).sqrt())
    }

    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn whole_history_conditioning_at_1_32_size() {
        for policy in [Policy::Ibf3, Policy::Ibf5, Policy::Ibf2, Policy::Ibf4] {
            compare_history(policy, 8192, 3125, 2000, (0, false));
        }
    }

    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn whole_history_conditioning_at_m_1024() {
        for policy in [Policy::Ibf3, Policy::Ibf2] {
            compare_history(policy, 1024, 12_000, 200, (0, false));
        }
    }

    /// Session 14: [`whole_history_conditioning_at_1_32_size`] with the population's
    /// importance classes of this model, IBF3 and IBF2, 1000 samples.
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn whole_history_conditioning_with_population_classes() {
        for policy in [Policy::Ibf3, Policy::Ibf2] {
            compare_history(policy, 8192, 3125, 1000, (POP_CLASSES, POP_PAIRS));
        }
    }

    /// Issue 19 item 1 (session 20): which part of an item's own history the
    /// whole-history sampler's wFN rests on. The sampler's `E_h[f(z_h)]`, `f(z) = 1 − (1 −
    /// z)^K`, against `E_F[f(E[z | F])]` for sets `F` of features of the history (samples
    /// grouped by them): with `F` what this model conditions on (importance, query time,
    /// last insertion, own count) it should come near the model; a feature that closes
    /// the rest is what the model lacks. Settings from the environment: `POLICIES`
    /// (`ibf2`), `SAMPLES` (4000), `SEED` (7), `TAGGED` (the model's, for its figures),
    /// `M`/`N` (8192/3125).
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn history_features() {
        let samples: usize = env_or("SAMPLES", "4000").parse().unwrap();
        let m: u64 = env_or("M", "8192").parse().unwrap();
        let n: u64 = env_or("N", "3125").parse().unwrap();
        let policies = env_or("POLICIES", "ibf2");
        for policy in [Policy::Ibf2, Policy::Ibf3, Policy::Ibf4, Policy::Ibf5] {
            if !policies.contains(&policy.to_string()) {
                continue;
            }
            let (p, stream) = session_11_setting(policy, m, n);
            let cap = counter_model_items_cap(&p, &stream);
            let model = crate::stable::stream_metrics(&p, &stream).unwrap();
            let seed: u64 = env_or("SEED", "7").parse().unwrap();
            let hs = history_samples(
                &p,
                &stream,
                cap,
                samples,
                seed,
                false,
                (POP_CLASSES, POP_PAIRS),
            );
            let k = p.k();
            let big_n = n as usize;
            let bin = move |x: usize, parts: usize| x * parts / big_n;
            let gap = move |h: &HistorySample| match h.prev {
                None => 0,
                Some(q) => 1 + bin(h.last - q, 8).min(3),
            };
            let count = |h: &HistorySample| h.count.min(OWN_CLASSES as usize);
            // A pseudo-random label of `levels` levels: the bias of groups that small.
            let noise = |levels: usize| {
                move |h: &HistorySample| {
                    let mut x = ((h.t as u64) << 40 ^ (h.s as u64) << 20 ^ h.last as u64)
                        .wrapping_add(h.j as u64)
                        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    x ^= x >> 31;
                    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    ((x ^ (x >> 29)) % levels as u64) as usize
                }
            };
            type Feature = Box<dyn Fn(&HistorySample) -> usize>;
            let base = || -> Vec<Feature> {
                vec![
                    Box::new(|h| h.j / 2),
                    Box::new(move |h| bin(h.t, 8)),
                    Box::new(move |h| bin(h.last, 16)),
                ]
            };
            let with = |extra: Vec<Feature>| {
                let mut v = base();
                v.extend(extra);
                v
            };
            let sets: Vec<(&str, Vec<Feature>)> = vec![
                ("importance, query, last", base()),
                ("+ own count", with(vec![Box::new(count)])),
                ("+ noise of 4 levels", with(vec![Box::new(noise(4))])),
                ("+ gap to previous", with(vec![Box::new(gap)])),
                ("+ noise of 5 levels", with(vec![Box::new(noise(5))])),
                (
                    "+ own count + gap",
                    with(vec![Box::new(count), Box::new(gap)]),
                ),
                ("+ noise of 20 levels", with(vec![Box::new(noise(20))])),
                (
                    "+ own count + birth",
                    with(vec![Box::new(count), Box::new(move |h| bin(h.s, 4))]),
                ),
                ("+ noise of 16 levels", with(vec![Box::new(noise(16))])),
            ];
            let whole = hs.iter().map(|h| h.fn_h).sum::<f64>() / hs.len() as f64;
            println!(
                "{policy} m={m} N={n}, {samples} samples: model wFN {:.4}, whole history {whole:.4}",
                model.weighted_fn
            );
            // A linear quantity: the weighted mean zero probability of a repeat's cell.
            let tagged: u64 = env_or("TAGGED", &TAGGED.to_string()).parse().unwrap();
            let (_, fns_t, _) = run(
                &p,
                &stream,
                cap,
                &Reductions {
                    tagged,
                    ..Reductions::DEFAULT
                },
            )
            .unwrap();
            let linear = Reductions {
                fn_k: Some(1),
                tagged,
                ..Reductions::DEFAULT
            };
            let (_, fns1, _) = run(&p, &stream, cap, &linear).unwrap();
            println!(
                "  {tagged} tagged: model wFN {:.4}; mean z of a repeat's cell (weighted as the wFN): model {:.4}, sampler {:.4}",
                fn_and_wfn(&p, &fns_t).1,
                fn_and_wfn(&p, &fns1).1,
                hs.iter().map(|h| h.z).sum::<f64>() / hs.len() as f64
            );
            // What the samples with a likely zero cell have in common.
            let mut hist = [0usize; 10];
            let mut means = [[0.0f64; 7]; 3];
            let mut counts = [0usize; 3];
            for h in &hs {
                hist[((h.z * 10.0) as usize).min(9)] += 1;
                let class = if h.z < 0.1 {
                    0
                } else if h.z < 0.9 {
                    1
                } else {
                    2
                };
                counts[class] += 1;
                let row = [
                    (h.t - h.last) as f64,
                    h.count as f64,
                    h.prev.map_or(f64::NAN, |q| (h.last - q) as f64),
                    h.last as f64,
                    h.t as f64,
                    (h.j + 1) as f64,
                    h.s as f64,
                ];
                for (a, x) in means[class].iter_mut().zip(row) {
                    *a += if x.is_nan() { 0.0 } else { x };
                }
            }
            println!("  z histogram (tenths): {hist:?}");
            for (c, name) in ["z < 0.1", "0.1-0.9", "z ≥ 0.9"].iter().enumerate() {
                let n = counts[c].max(1) as f64;
                let r = means[c].map(|a| a / n);
                println!(
                    "  {name:<8} {:5} samples: age {:.0}, count {:.2}, gap to previous (0 if none) {:.0}, last {:.0}, query {:.0}, importance {:.1}, birth {:.0}",
                    counts[c], r[0], r[1], r[2], r[3], r[4], r[5], r[6]
                );
            }
            for (name, fs) in &sets {
                let mut groups: std::collections::HashMap<Vec<usize>, Vec<f64>> =
                    std::collections::HashMap::new();
                for h in &hs {
                    let key: Vec<usize> = fs.iter().map(|f| f(h)).collect();
                    groups.entry(key).or_default().push(h.z);
                }
                // Over the groups of at least K samples: the mean of f(z) (the whole
                // history) against an unbiased estimate of f(mean z), f a polynomial of
                // degree K whose powers μ^q are estimated by e_q/C(n, q), e_q the
                // elementary symmetric polynomials of the group's z (a U-statistic).
                let (mut covered, mut whole_c, mut grouped) = (0usize, 0.0, 0.0);
                for zs in groups.values().filter(|zs| zs.len() >= k as usize) {
                    let n = zs.len();
                    let mut e = vec![0.0; k as usize + 1];
                    e[0] = 1.0;
                    for &z in zs {
                        for q in (1..=k as usize).rev() {
                            e[q] += e[q - 1] * z;
                        }
                    }
                    let mut f = 0.0;
                    let mut choose_k = 1.0; // C(K, q)
                    let mut choose_n = 1.0; // C(n, q)
                    for q in 1..=k as usize {
                        choose_k *= (k as usize + 1 - q) as f64 / q as f64;
                        choose_n *= (n + 1 - q) as f64 / q as f64;
                        let sign = if q % 2 == 1 { 1.0 } else { -1.0 };
                        f += sign * choose_k * e[q] / choose_n;
                    }
                    covered += n;
                    grouped += n as f64 * f;
                    whole_c += zs.iter().map(|&z| fn_from_zero(z, k)).sum::<f64>();
                }
                if covered == 0 {
                    println!("  {name:<34} no group of {k} samples (raise SAMPLES)");
                    continue;
                }
                println!(
                    "  {name:<34} {:.4} against {:.4} ({} groups, {:.0}% of the samples)",
                    grouped / covered as f64,
                    whole_c / covered as f64,
                    groups.len(),
                    100.0 * covered as f64 / hs.len() as f64
                );
            }
        }
    }

    /// Prints the model's wFN against [`history_samples`] with and without the own repeats
    /// averaged (K = 4, Max = 4, P = 7, importance 1..50, 70% repeats).
    fn compare_history(
        policy: Policy,
        m: u64,
        arrivals: u64,
        samples: usize,
        classes: (usize, bool),
    ) {
        {
            let p =
                IbfParams::new(policy, m, 4, 4, 7, ImportanceDist::linear(1, 50).unwrap()).unwrap();
            let stream = RepeatStream::new(arrivals, 0.7).unwrap();
            let model = crate::stable::stream_metrics(&p, &stream).unwrap();
            let crate::stable::StreamMethod::CellItemsCounter { items_cap, .. } = model.method
            else {
                panic!("not the counter model")
            };
            let fns = |mixed: bool| -> Vec<f64> {
                history_samples(&p, &stream, items_cap, samples, 7, mixed, classes)
                    .iter()
                    .map(|h| h.fn_h)
                    .collect()
            };
            let (mixed, joint) = (fns(true), fns(false));
            let diff: Vec<f64> = joint.iter().zip(&mixed).map(|(j, x)| j - x).collect();
            let ((a, sa), (b, sb), (d, sd)) = (mean_se(&mixed), mean_se(&joint), mean_se(&diff));
            println!(
                "{policy} m={m} N={arrivals}: model wFN {:.4}; sampled, own repeats averaged {a:.4} ± {sa:.4}; whole history {b:.4} ± {sb:.4}; difference {d:.4} ± {sd:.4}",
                model.weighted_fn
            );
        }
    }

    /// The session 11 diagnostics' settings (module doc): IBF3 and IBF5 at m = 1024 with
    /// 12 000 arrivals and at 1/32 of the thesis's size, `(policy, m, arrivals)`.
    const SESSION_11_CONFIGS: [(Policy, u64, u64); 4] = [
        (Policy::Ibf3, 1024, 12_000),
        (Policy::Ibf5, 1024, 12_000),
        (Policy::Ibf3, 8192, 3125),
        (Policy::Ibf5, 8192, 3125),
    ];

    /// The items cap of the counter model `stream_metrics` uses for `p` on `stream`.
    fn counter_model_items_cap(p: &IbfParams, stream: &RepeatStream) -> usize {
        assert!(p.policy().tracks_cumulative(), "not the counter model");
        crate::stable::repeats::items_per_cell(p, stream).expect("the counter model")
    }

    /// The filter (`K = 4`, `Max = 4`, `P = 7`, importance linear on 1..50) and the 70%
    /// repeat stream of one of [`SESSION_11_CONFIGS`].
    fn session_11_setting(policy: Policy, m: u64, n: u64) -> (IbfParams, RepeatStream) {
        let p = IbfParams::new(policy, m, 4, 4, 7, ImportanceDist::linear(1, 50).unwrap()).unwrap();
        (p, RepeatStream::new(n, 0.7).unwrap())
    }

    /// Issue 19 item 1: the model's *unweighted* FN of repeats (`Σ_i w_i·FN_i`: repeats
    /// are of uniformly chosen distinct items, so their importances follow the law), to
    /// compare with the simulation's FN of repeats and its independent-cells figure
    /// (`pool_weight_fluctuation` in `validation/src/experiments/stable.rs`). Printed
    /// before session 14: IBF3 0.6980 (wFN 0.6550), IBF5 0.7263 (0.6820) at m = 1024; IBF3
    /// 0.5304 (0.3965), IBF5 0.5469 (0.4145) at 1/32 size; after: 0.6933 (0.6495), 0.7240
    /// (0.6794), 0.4777 (0.3385), 0.5101 (0.3732).
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn unweighted_fn_of_repeats() {
        for (policy, m, n) in SESSION_11_CONFIGS {
            let (p, stream) = session_11_setting(policy, m, n);
            let model = crate::stable::stream_metrics(&p, &stream).unwrap();
            let fn_all: f64 = p
                .importance()
                .iter()
                .zip(&model.fn_by_importance)
                .map(|((_, w), f)| w * f)
                .sum();
            println!(
                "{policy} m={m} N={n}: model FN of repeats {fn_all:.4}, wFN {:.4}",
                model.weighted_fn
            );
        }
    }

    /// Issue 19 item 1, the self-weight experiment: the model's wFN with the tagged
    /// item's `K` cells adding their own weight to the deletion pool
    /// ([`Reductions::self_weight`]) and with every counter level exact, against the
    /// model. Printed (session 11 in the module doc, the model before session 14): IBF3 0.6550, 0.6495, 0.6545 and IBF5
    /// 0.6820, 0.6769, 0.6816 at m = 1024; IBF3 0.3965, 0.3933, 0.3959 and IBF5 0.4145,
    /// 0.4111, 0.4141 at 1/32 size. About 6 min (the exact levels).
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn self_weight_in_the_pool() {
        for (policy, m, n) in SESSION_11_CONFIGS {
            let (p, stream) = session_11_setting(policy, m, n);
            let cap = counter_model_items_cap(&p, &stream);
            let wfn = |self_weight: bool, exact: u32| {
                let red = Reductions {
                    self_weight,
                    exact,
                    ..Reductions::DEFAULT
                };
                let (_, fns, _) = run(&p, &stream, cap, &red).unwrap();
                fn_and_wfn(&p, &fns).1
            };
            println!(
                "{policy} m={m} N={n}: wFN {:.4}, own weight in the pool {:.4}, every counter level exact {:.4}",
                wfn(false, EXACT_LEVELS),
                wfn(true, EXACT_LEVELS),
                wfn(false, 255)
            );
        }
    }

    /// The model's wFN with the given number of tracked importances.
    /// `(FN of repeats, weighted FN)` of the FN per importance `fns` under `p`'s
    /// importance law (the weighted FN weights each importance by its value).
    fn fn_and_wfn(p: &IbfParams, fns: &[f64]) -> (f64, f64) {
        let dist = p.importance();
        let fn_all = dist.iter().zip(fns).map(|((_, w), f)| w * f).sum();
        let wfn = dist
            .iter()
            .zip(fns)
            .map(|((i, w), f)| w * f64::from(i) * f)
            .sum::<f64>()
            / dist.mean();
        (fn_all, wfn)
    }

    /// One run of the diagnostics: `(wFP, FN by importance, FN of repeats, wFN, seconds)`.
    fn timed_run(
        p: &IbfParams,
        stream: &RepeatStream,
        cap: usize,
        red: &Reductions,
    ) -> (f64, Vec<f64>, f64, f64, f64) {
        let t0 = std::time::Instant::now();
        let (wfp, fns, _) = run(p, stream, cap, red).unwrap();
        let (fn_all, wfn) = fn_and_wfn(p, &fns);
        (wfp, fns, fn_all, wfn, t0.elapsed().as_secs_f64())
    }

    fn wfn_tagged(p: &IbfParams, stream: &RepeatStream, cap: usize, tagged: u64) -> f64 {
        let red = Reductions {
            tagged,
            ..Reductions::DEFAULT
        };
        let (_, fns, _) = run(p, stream, cap, &red).unwrap();
        fn_and_wfn(p, &fns).1
    }

    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn interpolated_importances() {
        for (policy, m, n) in [
            (Policy::Ibf3, 8192u64, 3125u64),
            (Policy::Ibf5, 8192, 3125),
            (Policy::Ibf2, 8192, 3125),
            (Policy::Ibf3, 1024, 12_000),
        ] {
            let p =
                IbfParams::new(policy, m, 4, 4, 7, ImportanceDist::linear(1, 50).unwrap()).unwrap();
            let stream = RepeatStream::new(n, 0.7).unwrap();
            let cap = counter_model_items_cap(&p, &stream);
            println!(
                "{policy} m={m} N={n}: wFN tracked {TAGGED}: {:.4}, every importance: {:.4}",
                wfn_tagged(&p, &stream, cap, TAGGED),
                wfn_tagged(&p, &stream, cap, 50)
            );
        }
    }

    /// Issue 19 item 1, session 14: the model's per-cell law of a repeat's cells, to set
    /// against the filter's (`start_law_diagnostic` in `validation/src/experiments/
    /// stable.rs`, same rows): per tracked importance, own class and query quarter, the
    /// FN, the per-cell zero probability, the mean start counter and, per bin of the
    /// counter before the set ([`PROBE_BINS`]), the start share and the zero
    /// probability.
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn per_cell_probe() {
        for (policy, m, n) in [
            SESSION_11_CONFIGS[2],
            SESSION_11_CONFIGS[3],
            SESSION_11_CONFIGS[0],
            SESSION_11_CONFIGS[1],
        ] {
            let (p, stream) = session_11_setting(policy, m, n);
            let cap = counter_model_items_cap(&p, &stream);
            let mut rows = Vec::new();
            let (_, fns, _) =
                run_probed(&p, &stream, cap, &Reductions::DEFAULT, Some(&mut rows)).unwrap();
            println!("{policy} m={m} N={n} model:");
            let line = |label: String, sel: &dyn Fn(&ProbeRow) -> bool| {
                let (mut tot, mut fnm, mut z, mut c) = (0.0, 0.0, 0.0, 0.0);
                let (mut bm, mut bz) = ([0.0; 6], [0.0; 6]);
                for r in rows.iter().filter(|r| sel(r)) {
                    let mass: f64 = r.mass.iter().sum();
                    if mass <= 0.0 {
                        continue;
                    }
                    let zr: f64 = r.zmass.iter().sum::<f64>() / mass;
                    tot += r.weight * mass;
                    fnm += r.weight * mass * fn_from_zero(zr.min(1.0), p.k());
                    z += r.weight * mass * zr;
                    c += r.weight * r.cmass;
                    for bin in 0..6 {
                        bm[bin] += r.weight * r.mass[bin];
                        bz[bin] += r.weight * r.zmass[bin];
                    }
                }
                let bins: Vec<String> = (0..6)
                    .map(|bin| format!("{:.3}:{:.3}", bm[bin] / tot, bz[bin] / bm[bin]))
                    .collect();
                println!(
                    "  {label}: weight {:.4} FN {:.4} cell zero {:.4} mean start c {:.1}; c-i bins (share:zero) {}",
                    tot / 4.0,
                    fnm / tot,
                    z / tot,
                    c / tot,
                    bins.join(" ")
                );
            };
            let mut imps: Vec<u32> = rows.iter().map(|r| r.importance).collect();
            imps.sort_unstable();
            imps.dedup();
            for &i in &imps {
                let lo = p.importance().lo();
                println!("  i={i}: model FN {:.4}", fns[(i - lo) as usize]);
                line(format!("i={i}"), &|r| r.importance == i);
                for q in 0..4 {
                    line(format!("i={i} own {}", q + 1), &|r| {
                        r.importance == i && r.class == q
                    });
                }
            }
            for i in [13u32, 16, 26, 27] {
                if !imps.contains(&i) {
                    continue;
                }
                for q in 0..2 {
                    for t in 0..4 {
                        line(format!("i={i} own {} quarter {t}", q + 1), &|r| {
                            r.importance == i && r.class == q && r.time == t
                        });
                    }
                }
            }
        }
    }

    /// Issue 19 item 1, session 14: the model's deletion weight `m·W̄_u` (the filter's
    /// `W_u = Σ_{v ≥ 1} 1/c`, measured by `pool_weight_fluctuation` in
    /// `validation/src/experiments/stable.rs`) at a quarter, half and the end of the
    /// stream, and the zero fraction there.
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn pool_weight_of_the_model() {
        for (policy, m, n) in SESSION_11_CONFIGS {
            let (p, stream) = session_11_setting(policy, m, n);
            let cap = counter_model_items_cap(&p, &stream);
            for (classes, pairs) in [(0, false), (POP_CLASSES, false), (POP_CLASSES, true)] {
                let md = Model::with_classes(&p, cap, EXACT_LEVELS, LEVEL_RATIO, classes, pairs);
                let big_n = n as usize;
                let (nl, b) = (md.nl, md.block());
                let mut x = vec![0.0; md.pop_blocks() * b];
                x[0] = 1.0;
                let mut y = x.clone();
                let mut dec = vec![0.0; nl];
                let mut col = vec![0.0; md.pop_blocks() * nl];
                let mut out = Vec::new();
                for u in 0..big_n {
                    if [big_n / 4, big_n / 2, big_n - 1].contains(&u) {
                        let mut w = 0.0;
                        for blk in x.chunks(b) {
                            for l in 1..nl {
                                let mass: f64 = blk[md.at(1, l)..md.at(1, l) + md.max].iter().sum();
                                w += mass * md.levels.inv[l];
                            }
                        }
                        let zero: f64 = x.chunks(b).map(|blk| blk[0]).sum();
                        // Per counter bin from 1, 2, 4, …, 128: share of the non-zero cells
                        // and of W.
                        let mut bins = [(0.0, 0.0); 8];
                        for blk in x.chunks(b) {
                            for l in 1..nl {
                                let mass: f64 = blk[md.at(1, l)..md.at(1, l) + md.max].iter().sum();
                                let bin = (md.levels.rep[l].log2().floor() as usize).min(7);
                                bins[bin].0 += mass / (1.0 - zero);
                                bins[bin].1 += mass * md.levels.inv[l] / w;
                            }
                        }
                        let bins: Vec<String> = bins
                            .iter()
                            .enumerate()
                            .map(|(q, (c, wq))| format!("{}+ {c:.3}:{wq:.3}", 1 << q))
                            .collect();
                        out.push(format!(
                            "u={u}: W {:.1} zero {:.4}; {}",
                            m as f64 * w,
                            zero,
                            bins.join(" ")
                        ));
                    }
                    md.dec_law(&x, &mut dec);
                    md.delete(&x, &dec, &mut y);
                    md.columns(&y, &mut col);
                    md.arrive_pop(&y, &col, stream.p_new(u), per_item_rate(&stream, u), &mut x);
                }
                println!(
                    "{policy} m={m} N={n}, population classes {classes}, pairs {pairs}:\n  {}",
                    out.join("\n  ")
                );
            }
        }
    }

    /// Issue 19 item 1, session 14, a what-if: the unweighted FN of repeats with the
    /// pool weight `m·W̄_u` scaled up to the filter's (measured 15-17% above this
    /// model's at 1/32 size, equal at m = 1024; `pool_weight_of_the_model`).
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn fn_with_the_pool_weight_scaled() {
        for (policy, m, n) in SESSION_11_CONFIGS {
            let (p, stream) = session_11_setting(policy, m, n);
            let cap = counter_model_items_cap(&p, &stream);
            let mut line = Vec::new();
            for w_scale in [1.0, 1.08, 1.15] {
                let red = Reductions {
                    w_scale,
                    ..Reductions::DEFAULT
                };
                let (_, fns, _) = run(&p, &stream, cap, &red).unwrap();
                let fn_all: f64 = p
                    .importance()
                    .iter()
                    .zip(&fns)
                    .map(|((_, w), f)| w * f)
                    .sum();
                line.push(format!("×{w_scale}: FN of repeats {fn_all:.4}"));
            }
            println!("{policy} m={m} N={n}: {}", line.join("; "));
        }
    }

    /// Issue 19 item 1, session 14: the unweighted FN of repeats and the wFN (and wFP)
    /// without importance classes in the population (the model before session 14), with
    /// [`POP_CLASSES`] and with every importance its own class.
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn fn_with_population_classes() {
        for (policy, m, n) in SESSION_11_CONFIGS.into_iter().chain([
            (Policy::Ibf2, 8192, 3125),
            (Policy::Ibf4, 8192, 3125),
            (Policy::Ibf2, 1024, 12_000),
            (Policy::Ibf4, 1024, 12_000),
        ]) {
            let (p, stream) = session_11_setting(policy, m, n);
            let cap = counter_model_items_cap(&p, &stream);
            let mut line = Vec::new();
            for (pop_classes, pop_pairs) in [
                (0, false),
                (POP_CLASSES, false),
                (5, true),
                (POP_CLASSES, true),
                (20, true),
            ] {
                if m == 1024 && pop_classes == 20 {
                    continue;
                }
                let red = Reductions {
                    pop_classes,
                    pop_pairs,
                    ..Reductions::DEFAULT
                };
                let (wfp, _, fn_all, wfn, secs) = timed_run(&p, &stream, cap, &red);
                line.push(format!(
                    "classes {pop_classes}, pairs {pop_pairs}: FN of repeats {fn_all:.4} wFN {wfn:.4} wFP {wfp:.5} ({secs:.1} s)"
                ));
            }
            println!("{policy} m={m} N={n}:\n  {}", line.join("\n  "));
        }
    }

    /// Session 19 (module doc): the wFN with own classes by the time of the item's last
    /// insertion as well as by its own count (`Reductions::own_time_bins`), more count
    /// classes, and more query times. Environment: `OWN_TIME_BINS`, `OWN_COUNTS` (lists),
    /// `TIME_SAMPLES`, `POLICIES` (e.g. `ibf2,ibf3`).
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn fn_with_own_time_bins() {
        let bins = env_list("OWN_TIME_BINS", "1,4,16");
        let counts = env_list("OWN_COUNTS", &OWN_CLASSES.to_string());
        let samples = env_list("TIME_SAMPLES", &TIME_SAMPLES.to_string())[0];
        let policies = env_or("POLICIES", "ibf2,ibf3,ibf4,ibf5");
        for (policy, m, n) in [
            (Policy::Ibf3, 8192, 3125),
            (Policy::Ibf2, 8192, 3125),
            (Policy::Ibf5, 8192, 3125),
            (Policy::Ibf4, 8192, 3125),
            (Policy::Ibf3, 1024, 12_000),
        ] {
            if !policies.contains(&policy.to_string()) {
                continue;
            }
            let (p, stream) = session_11_setting(policy, m, n);
            let cap = counter_model_items_cap(&p, &stream);
            for (&own_time_bins, &own_classes) in
                bins.iter().flat_map(|b| counts.iter().map(move |c| (b, c)))
            {
                let red = Reductions {
                    own_time_bins: own_time_bins as usize,
                    own_classes,
                    samples,
                    ..Reductions::DEFAULT
                };
                let (_, _, fn_all, wfn, secs) = timed_run(&p, &stream, cap, &red);
                println!(
                    "{policy} m={m} N={n} time bins {own_time_bins} counts {own_classes} \
                     query times {samples}: FN of repeats {fn_all:.4} wFN {wfn:.4} ({secs:.1} s)"
                );
            }
        }
    }

    /// The model's wFP and wFN at the thesis's size (K = 4, Max = 4, P = 7, 100 000
    /// arrivals, 70% repeats): the module doc's second table. About 3 min.
    /// A diagnostic's setting from the environment, or `default`.
    fn env_or(var: &str, default: &str) -> String {
        std::env::var(var).unwrap_or_else(|_| default.into())
    }

    /// A comma-separated list of numbers from the environment, or `default`.
    fn env_list(var: &str, default: &str) -> Vec<u64> {
        env_or(var, default)
            .split(',')
            .map(|x| x.parse().expect("a number"))
            .collect()
    }

    /// Issue 19 item 1 (session 20): the wFN and its cost against the number of tracked
    /// importances and of read ages. Environment: `TAGGED`, `READS` (lists), `POLICIES`,
    /// `M`, `N`, `MAX`, `P` (default the 1/32-size setting: 8192, 3125, 4, 7), `CURVE`
    /// (also print the FN by importance). At the thesis's size: `M=262144 N=100000`.
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn reductions_scan() {
        let tagged = env_list("TAGGED", "5,16");
        let reads = env_list("READS", &READS.to_string());
        let [m, n, max, pp] = [("M", "8192"), ("N", "3125"), ("MAX", "4"), ("P", "7")]
            .map(|(v, d)| env_or(v, d).parse::<u64>().expect("a number"));
        let policies = env_or("POLICIES", "ibf2,ibf3,ibf4,ibf5");
        for policy in [Policy::Ibf2, Policy::Ibf3, Policy::Ibf4, Policy::Ibf5] {
            if !policies.contains(&policy.to_string()) {
                continue;
            }
            let imp = ImportanceDist::linear(1, 50).unwrap();
            let p = IbfParams::new(policy, m, 4, max as u32, pp, imp).unwrap();
            let stream = RepeatStream::new(n, 0.7).unwrap();
            let cap = counter_model_items_cap(&p, &stream);
            for (&tagged, &reads) in tagged
                .iter()
                .flat_map(|t| reads.iter().map(move |r| (t, r)))
            {
                let red = Reductions {
                    tagged,
                    reads,
                    ..Reductions::DEFAULT
                };
                let (wfp, fns, f, w, secs) = timed_run(&p, &stream, cap, &red);
                println!(
                    "{policy} m={m} N={n} tagged {tagged} reads {reads}: wFP {wfp:.5} FN {f:.4} wFN {w:.4} ({secs:.1} s)"
                );
                if std::env::var("CURVE").is_ok() {
                    let row: Vec<String> = fns.iter().map(|f| format!("{f:.2}")).collect();
                    println!("  FN by importance: {}", row.join(" "));
                }
            }
        }
    }

    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn thesis_size_model() {
        for (policy, m) in [
            (Policy::Ibf3, 65_536u64),
            (Policy::Ibf3, 262_144),
            (Policy::Ibf5, 262_144),
            (Policy::Ibf2, 262_144),
            (Policy::Ibf4, 262_144),
        ] {
            let (p, stream) = session_11_setting(policy, m, 100_000);
            let r = crate::stable::stream_metrics(&p, &stream).unwrap();
            println!(
                "{policy} m={m}: wFP {:.5} wFN {:.4}",
                r.weighted_fp, r.weighted_fn
            );
        }
    }
}
