//! `bfopt target SYSTEM --fp P --capacity N` (issue 24).

use super::{assert_exit, json, run_ok};
use bfopt_models::systems::{target, System};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetRow {
    family: String,
    params: TargetParams,
    metrics: TargetMetrics,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetParams {
    setting: String,
    config: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetMetrics {
    bits: u64,
    hashes: u32,
    bits_per_item: f64,
    fp: f64,
    meets: bool,
}

#[test]
fn target_all_lists_requested_and_bfopt_rows_as_the_library_computes_them() {
    let rows: Vec<TargetRow> = json("target all --fp 0.01 --capacity 1e6");
    // Two rows per system, three for RedisBloom (its scaling request).
    assert_eq!(rows.len(), 2 * System::ALL.len() + 1);
    let mut rest = rows.as_slice();
    for system in System::ALL {
        let t = target(system, 0.01, 1_000_000).unwrap();
        let mut expected = vec![("requested", &t.requested)];
        expected.extend(t.scaling.iter().map(|c| ("scaling", c)));
        expected.push(("bfopt", &t.suggested));
        let (these, tail) = rest.split_at(expected.len());
        rest = tail;
        for (row, (setting, c)) in these.iter().zip(expected) {
            assert_eq!(row.family, system.name());
            assert_eq!(row.params.setting, setting);
            assert_eq!(row.params.config, c.config);
            let m = &row.metrics;
            assert_eq!((m.bits, m.hashes), (c.filter.bits, c.filter.hashes));
            // The same model; the binary may be built at another optimisation level, where
            // `powi` can round its last bit differently.
            assert!(
                (m.fp / c.filter.fp - 1.0).abs() < 1e-12,
                "{} vs {}",
                m.fp,
                c.filter.fp
            );
            assert_eq!(m.bits_per_item, c.filter.bits as f64 / 1e6);
            assert_eq!(m.meets, m.fp <= 0.01);
        }
        assert!(
            these.last().unwrap().metrics.meets,
            "{system:?}: bfopt's row must meet the target"
        );
    }
    // The defaults that miss 1%: Guava's truncation, Parquet's 1 MiB cap; RedisBloom's
    // scaling request builds at 0.5%.
    assert!(!rows[0].metrics.meets && rows[0].metrics.fp < 0.0101);
    assert_eq!(rows[3].params.config, "BF.RESERVE k 0.01 1000000");
    assert_eq!(rows[3].metrics.hashes, 8);
    assert_eq!(rows[5].params.config, "ndv=1000000 fpp=0.01");
    assert_eq!(
        rows[6].params.config,
        "ndv=1000000 fpp=0.01 max.bytes=2097152"
    );
}

#[test]
fn target_one_system() {
    let rows: Vec<TargetRow> = json("target rocksdb --fp 0.001 --capacity 100000");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].params.config, "NewBloomFilterPolicy(14.378)");
    assert!(rows[1].params.config.starts_with("NewBloomFilterPolicy("));
    assert!(rows[1].metrics.meets && rows[1].metrics.bits >= rows[0].metrics.bits);
}

#[test]
fn target_table_fits_120_columns_and_csv_has_a_header() {
    for fp in ["0.01", "0.001"] {
        let out = run_ok(&format!("target all --fp {fp} --capacity 1e6"))
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("family"), "{text}");
        for line in text.lines() {
            assert!(
                line.chars().count() <= 120,
                "{} columns: {line}",
                line.len()
            );
        }
    }
    let out = run_ok("target guava --fp 0.01 --capacity 1000 --format csv")
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        "family,setting,config,bits,hashes,bits_per_item,fp,meets"
    );
    assert_eq!(text.lines().count(), 3);
}

#[test]
fn target_bad_input_exits_2_naming_flag_value_and_range() {
    for fp in ["0", "1", "1.5", "-0.1", "nan", "inf"] {
        assert_exit(
            &format!("target guava --fp {fp} --capacity 1000"),
            2,
            &["--fp"],
        );
    }
    assert_exit(
        "target guava --fp 1.5 --capacity 1000",
        2,
        &["--fp = 1.5", "0 < fp < 1"],
    );
    assert_exit(
        "target parquet --fp 0.01 --capacity 0",
        2,
        &["--capacity = 0", "1 <="],
    );
    assert_exit(
        "target redisbloom --fp 0.01 --capacity 2e9",
        2,
        &["--capacity = 2000000000", "1073741824"],
    );
    assert_exit("target mysql --fp 0.01 --capacity 10", 2, &["mysql"]);
    assert_exit("target guava --capacity 10", 2, &["--fp"]);
}

#[test]
fn target_unreachable_exits_3() {
    // RocksDB caps bits per key at 100: FP 1e-12 is out of reach.
    assert_exit(
        "target rocksdb --fp 1e-12 --capacity 1e6",
        3,
        &["100 bits per key", "achievable"],
    );
}

/// `recommend --target SYSTEM` (issue 24): the plan, then what to type into the system
/// for the requirement's FP and capacity, the same rows `bfopt target` prints.
#[test]
fn recommend_target_adds_the_configuration_to_type() {
    let plan: serde_json::Value = json("recommend --fp 0.01 --capacity 1e6 --target guava");
    let t = &plan["target"];
    assert_eq!(t["fp"], 0.01);
    assert_eq!(t["capacity"], 1_000_000);
    let rows: Vec<TargetRow> = serde_json::from_value(t["configurations"].clone()).unwrap();
    let expected: Vec<TargetRow> = json("target guava --fp 0.01 --capacity 1e6");
    assert_eq!(rows.len(), 2);
    for (a, b) in rows.iter().zip(&expected) {
        assert_eq!(a.family, "guava");
        assert_eq!(
            (&a.params.setting, &a.params.config),
            (&b.params.setting, &b.params.config)
        );
        assert_eq!(
            (a.metrics.bits, a.metrics.hashes),
            (b.metrics.bits, b.metrics.hashes)
        );
        assert_eq!(a.metrics.fp, b.metrics.fp);
    }
    // Guava's own sizing misses 1% (0.01004); bfopt's fpp meets it.
    assert!(!rows[0].metrics.meets && rows[1].metrics.meets, "{rows:?}");
    // The plan itself is unchanged, and `check` still reads it.
    assert!(plan["candidates"].as_array().unwrap().len() >= 3);
    // The table names the systems' rows under the plan.
    let out = run_ok("recommend --fp 0.001 --capacity 1e5 --target all")
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let section = text.split("target: what to type").nth(1).expect(&text);
    for system in System::ALL {
        assert!(section.contains(system.name()), "{system:?}: {section}");
    }
    assert!(
        section.contains("NewBloomFilterPolicy(14.378)"),
        "{section}"
    );
    for line in text.lines() {
        assert!(line.chars().count() <= 120, "{line}");
    }
}

/// A window or temporal requirement cannot be typed into these systems: exit 2 saying
/// why.
#[test]
fn recommend_target_refuses_shapes_the_systems_cannot_express() {
    assert_exit(
        "recommend --fp 0.01 --window 1e4 --target redisbloom",
        2,
        &[
            "--target",
            "redisbloom",
            "only with --capacity",
            "a sliding window",
        ],
    );
    assert_exit(
        "recommend --fp 0.02 --horizon 1024 --query-length 32 --pairs 2e4 --target rocksdb",
        2,
        &["--target", "only with --capacity", "temporal"],
    );
}
