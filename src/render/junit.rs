use crate::report::Report;
use std::io::{self, Write};

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// JUnit XML: one `<testcase>` per validation check, a `<failure>` for each FAIL.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let checks = report.checks.as_deref().unwrap_or(&[]);
    let failures = checks.iter().filter(|c| !c.pass).count();
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="bfopt validate" tests="{}" failures="{failures}">"#,
        checks.len()
    )?;
    writeln!(
        out,
        r#"  <testsuite name="bfopt validate" tests="{}" failures="{failures}">"#,
        checks.len()
    )?;
    for c in checks {
        let (class, name) = (escape(&format!("bfopt.{}", c.family)), escape(&c.name));
        if c.pass {
            writeln!(out, r#"    <testcase classname="{class}" name="{name}"/>"#)?;
        } else {
            writeln!(out, r#"    <testcase classname="{class}" name="{name}">"#)?;
            writeln!(
                out,
                r#"      <failure message="model and simulation disagree">{}</failure>"#,
                escape(&c.to_string())
            )?;
            writeln!(out, "    </testcase>")?;
        }
    }
    writeln!(out, "  </testsuite>")?;
    writeln!(out, "</testsuites>")
}
