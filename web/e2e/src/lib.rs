//! Harness of the browser tests: serves `web/dist/` on a loopback port, starts Debian's
//! `chromedriver` with headless Chromium, and runs the `bfopt` CLI for the answers the
//! page must reproduce.

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `web/`.
pub fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The content type of a file served from `dist/`.
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// Answers one HTTP GET with a file under `root` (`/` is `index.html`; `..` refused).
fn answer(root: &Path, stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? <= 2 {
            break;
        }
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let path = if path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.to_string()
    };
    let file = root.join(path.trim_start_matches('/'));
    let mut out = stream;
    match std::fs::read(&file) {
        Ok(body) if !path.contains("..") => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                content_type(&path),
                body.len()
            )?;
            out.write_all(&body)
        }
        _ => write!(
            out,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ),
    }
}

/// Serves `root` on `127.0.0.1` in a background thread; returns the base URL.
pub fn serve(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = listener.local_addr().expect("local address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || answer(&root, stream));
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// A free loopback port.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A running `chromedriver` (killed on drop) and a WebDriver session on headless Chromium.
pub struct Browser {
    driver: Child,
    /// The WebDriver session.
    pub client: Client,
}

impl Browser {
    /// Starts `chromedriver` (from `chromium-driver`; `$CHROMEDRIVER` overrides) and a
    /// headless Chromium session (`$CHROMIUM` overrides `/usr/bin/chromium`).
    pub async fn start() -> Browser {
        let port = free_port();
        let exe = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let driver = Command::new(&exe)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start {exe} (apt-get install chromium-driver): {e}")
            });
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen on {port}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let binary = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let caps = json!({
            "goog:chromeOptions": {
                "binary": binary,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1200,1800"],
            }
        });
        let Value::Object(caps) = caps else {
            unreachable!()
        };
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a WebDriver session on headless Chromium");
        Browser { driver, client }
    }

    /// Ends the session and the driver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }

    /// Waits (up to `secs`) until `script` (a JS expression) is truthy; returns its value.
    pub async fn until(&self, script: &str, secs: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let v = self
                .client
                .execute(&format!("return {script};"), vec![])
                .await
                .expect("script runs");
            let truthy =
                !matches!(&v, Value::Null | Value::Bool(false)) && v != json!("") && v != json!(0);
            if truthy {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for `{script}`"
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The attribute `name` of the first element matching `css`.
    pub async fn attr(&self, css: &str, name: &str) -> Option<String> {
        let el = self.client.find(Locator::Css(css)).await.ok()?;
        el.attr(name).await.ok()?
    }
}

/// Drop guard: the driver dies with the test even when an assertion fails.
impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
    }
}

/// The `bfopt` binary: `$BFOPT_BIN`, else the workspace's release or debug build.
pub fn bfopt_bin() -> PathBuf {
    if let Ok(p) = std::env::var("BFOPT_BIN") {
        return PathBuf::from(p);
    }
    let target = web_dir().join("../target");
    ["release", "debug"]
        .iter()
        .map(|p| target.join(p).join("bfopt"))
        .find(|p| p.exists())
        .expect("build the CLI first (cargo build --bin bfopt) or set BFOPT_BIN")
}

/// Runs `bfopt args...`; returns (exit code, stdout, stderr).
pub fn cli(args: &[String]) -> (i32, String, String) {
    let out = Command::new(bfopt_bin())
        .args(args)
        .output()
        .expect("bfopt runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `bfopt recommend` examples of the README (the lines starting with
/// `bfopt recommend`, without comments and without `--validate` or `--format`; not those
/// that read a `--trace` file, which the page cannot), each
/// as its flag/value pairs.
pub fn readme_examples() -> Vec<Vec<(String, String)>> {
    let readme = std::fs::read_to_string(web_dir().join("../README.md")).expect("README.md");
    let mut out: Vec<Vec<(String, String)>> = Vec::new();
    for line in readme.lines() {
        let Some(rest) = line.trim().strip_prefix("bfopt recommend ") else {
            continue;
        };
        let words: Vec<&str> = rest
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            // The command ends at a shell operator (`> plan.json`, `| jq`, `&& ...`).
            .take_while(|w| ![">", ">>", "|", "&&", ";"].contains(w))
            .collect();
        // The page reads no files: a command that plans from a trace is the CLI's alone.
        if words.contains(&"--trace") {
            continue;
        }
        let mut pairs = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let flag = words[i].trim_start_matches("--").to_string();
            match flag.as_str() {
                "validate" | "wide" => i += 1,
                f if SWITCHES.contains(&f) => {
                    pairs.push((flag, "yes".into()));
                    i += 1;
                }
                "format" => i += 2,
                _ => {
                    pairs.push((flag, words.get(i + 1).unwrap_or(&"").to_string()));
                    i += 2;
                }
            }
        }
        if !pairs.is_empty() && !out.contains(&pairs) {
            out.push(pairs);
        }
    }
    out
}

/// `recommend`'s flags that take no value: the page's field holds `yes`.
pub const SWITCHES: &[&str] = &["deletions"];

/// The command-line words of one field: `--flag value`, or `--flag` for a switch.
pub fn flag_words(flag: &str, value: &str) -> Vec<String> {
    if SWITCHES.contains(&flag) {
        vec![format!("--{flag}")]
    } else {
        vec![format!("--{flag}"), value.to_string()]
    }
}

/// The URL query string of flag/value pairs (`fp=0.01&window=1e6`).
pub fn query_string(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| {
            format!(
                "{k}={}",
                v.replace(':', "%3A")
                    .replace('=', "%3D")
                    .replace(',', "%2C")
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// `recommend --format json` of the pairs: (exit code, JSON or Null, stderr).
pub fn cli_recommend(pairs: &[(String, String)]) -> (i32, Value, String) {
    let mut args = vec!["recommend".to_string()];
    args.extend(pairs.iter().flat_map(|(k, v)| flag_words(k, v)));
    args.extend(["--format".into(), "json".into()]);
    let (code, out, err) = cli(&args);
    (code, serde_json::from_str(&out).unwrap_or(Value::Null), err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_has_recommend_examples_and_queries_encode_them() {
        let ex = readme_examples();
        assert!(ex.len() >= 5, "{ex:?}");
        assert!(ex.iter().all(|e| e[0].0 == "fp"));
        let q = query_string(&[
            ("fp".into(), "0.01".into()),
            ("penalties".into(), "1:10".into()),
        ]);
        assert_eq!(q, "fp=0.01&penalties=1%3A10");
        assert!(
            ex.iter()
                .flatten()
                .all(|(k, v)| !k.contains('>') && !v.contains('>')),
            "{ex:?}"
        );
        assert_eq!(content_type("/pkg/bfopt_web_bg.wasm"), "application/wasm");
    }
}
