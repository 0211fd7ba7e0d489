//! Issue 21: binary fuse, cuckoo and counting Bloom filters in the CLI and the planner,
//! and the `--deletions` requirement.

use super::{assert_exit, json_value, plan_excluded, plan_rows, words};

fn bits_per_item(rows: &[serde_json::Value], design: &str) -> f64 {
    let row = rows
        .iter()
        .find(|r| r["params"]["design"] == design)
        .unwrap_or_else(|| panic!("no {design} row in {rows:?}"));
    row["metrics"]["bits_per_item"].as_f64().unwrap()
}

#[test]
fn issue_21_capacity_lists_fuse_with_fewer_bits_than_classic() {
    let rows = plan_rows("recommend --capacity 1e6 --fp 0.01");
    let fuse = bits_per_item(&rows, "binary-fuse/8");
    let classic = bits_per_item(&rows, "classic/standard");
    assert!(fuse < classic, "fuse {fuse} classic {classic}");
    assert!(rows.iter().any(|r| r["family"] == "cuckoo"));
    let notes = |family: &str| {
        rows.iter().find(|r| r["family"] == family).unwrap()["metrics"]["notes"].to_string()
    };
    assert!(notes("fuse").contains("no insertions or deletions"));
    assert!(notes("cuckoo").contains("deletion") && notes("cuckoo").contains("fail"));
    // Without deletions the counting filter is not offered (a classic filter answers the
    // same in a fraction of the bits).
    assert!(plan_excluded("recommend --capacity 1e6 --fp 0.01")
        .iter()
        .any(|e| e.starts_with("counting:")));
}

#[test]
fn issue_21_deletions_keep_only_structures_that_delete() {
    let rows = plan_rows("recommend --capacity 1e5 --fp 0.01 --deletions");
    let families: Vec<&str> = rows.iter().map(|r| r["family"].as_str().unwrap()).collect();
    assert!(
        families.contains(&"cuckoo") && families.contains(&"counting"),
        "{families:?}"
    );
    assert!(
        families.iter().all(|f| ["cuckoo", "counting"].contains(f)),
        "{families:?}"
    );
    let excluded = plan_excluded("recommend --capacity 1e5 --fp 0.01 --deletions");
    assert!(excluded
        .iter()
        .any(|e| e.starts_with("classic:") && e.contains("cannot delete")));
    assert_exit(
        "recommend --window 1e5 --fp 0.01 --deletions",
        2,
        &["--deletions", "--capacity"],
    );
}

#[test]
fn issue_21_deletion_rows_validate() {
    let plan = json_value(&words(
        "recommend --capacity 2e4 --fp 0.01 --deletions --validate",
    ));
    let designs = plan["validation"]["designs"].as_array().unwrap();
    assert_eq!(designs.len(), 2);
    assert!(designs.iter().all(|d| d["status"] == "pass"), "{designs:?}");
}

#[test]
fn issue_21_verbs_for_the_new_families() {
    let v = json_value(&words("optimize counting --fp 0.01 --items 1e5"));
    assert_eq!(v["metrics"]["counter_bits"], 4);
    assert!(v["metrics"]["overflow"].as_f64().unwrap() <= 1e-9);
    let v = json_value(&words("optimize fuse --fp 0.001 --items 1e5"));
    assert_eq!(v["metrics"]["fingerprint_bits"], 16);
    let v = json_value(&words("optimize cuckoo --fp 0.01 --items 1e5"));
    assert!(v["metrics"]["fp"].as_f64().unwrap() <= 0.01);
    let v = json_value(&words(
        "model cuckoo --fingerprint-bits 8 --buckets 1000 --items 3000",
    ));
    assert_eq!(v["metrics"]["supports_deletion"], true);
    for line in [
        "simulate fuse --items 1e4 --epochs 2 --probes 2e5",
        "simulate cuckoo --fingerprint-bits 8 --buckets 1024 --items 3000 --epochs 4 --probes 1e5",
        "simulate counting --counters 4096 --hashes 4 --items 700 --counter-bits 2 --epochs 16",
    ] {
        let v = json_value(&words(line));
        assert_eq!(v["metrics"]["agrees"], true, "{line}: {v}");
    }
}

#[test]
fn issue_21_bad_values_name_the_flag() {
    assert_exit(
        "model fuse --items 1000 --fingerprint-bits 12",
        2,
        &["--fingerprint-bits", "12", "8, 16, 32"],
    );
    assert_exit(
        "model cuckoo --fingerprint-bits 8 --buckets 1000 --items 5000",
        2,
        &["--items", "5000", "4000"],
    );
    assert_exit(
        "model counting --counters 1000 --hashes 3 --items 100 --counter-bits 17",
        2,
        &["--counter-bits", "17"],
    );
    assert_exit(
        "optimize cuckoo --fp 0.01 --items 1e5 --bucket-size 3",
        2,
        &["--bucket-size"],
    );
    assert_exit("optimize fuse --fp 1e-12 --items 100", 3, &["2^-32"]);
}
