use crate::report::Report;
use std::io::{self, Write};

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// One JUnit `<testcase>`.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    /// Its `classname` (`bfopt.classic`, `bfopt.check.<design>`).
    pub class: String,
    /// Its name.
    pub name: String,
    /// `(message, text)` of its `<failure>`, if it failed.
    pub failure: Option<(String, String)>,
}

/// JUnit XML: one `<testcase>` per validation check, a `<failure>` for each FAIL.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let checks = report.checks.as_deref().unwrap_or(&[]);
    let cases: Vec<TestCase> = checks
        .iter()
        .map(|c| TestCase {
            class: format!("bfopt.{}", c.family),
            name: c.name.clone(),
            failure: (!c.pass)
                .then(|| ("model and simulation disagree".to_string(), c.to_string())),
        })
        .collect();
    write_cases("bfopt validate", &cases, out)
}

/// A JUnit XML document of one test suite named `suite`.
///
/// # Errors
/// I/O errors.
pub fn write_cases(suite: &str, cases: &[TestCase], out: &mut dyn Write) -> io::Result<()> {
    let failures = cases.iter().filter(|c| c.failure.is_some()).count();
    let suite = escape(suite);
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="{suite}" tests="{}" failures="{failures}">"#,
        cases.len()
    )?;
    writeln!(
        out,
        r#"  <testsuite name="{suite}" tests="{}" failures="{failures}">"#,
        cases.len()
    )?;
    for c in cases {
        let (class, name) = (escape(&c.class), escape(&c.name));
        match &c.failure {
            None => writeln!(out, r#"    <testcase classname="{class}" name="{name}"/>"#)?,
            Some((message, text)) => {
                writeln!(out, r#"    <testcase classname="{class}" name="{name}">"#)?;
                writeln!(
                    out,
                    r#"      <failure message="{}">{}</failure>"#,
                    escape(message),
                    escape(text)
                )?;
                writeln!(out, "    </testcase>")?;
            }
        }
    }
    writeln!(out, "  </testsuite>")?;
    writeln!(out, "</testsuites>")
}
