//! A real browser for the web view's tests: headless Chromium driven
//! through ChromeDriver (Debian's `chromium` and `chromium-driver`, which
//! `.ci/run` installs) with the WebDriver protocol ([`fantoccini`]).
//!
//! [`Browser::start`] spawns `chromedriver` on a free loopback port and
//! opens one headless session. Where the browser is not installed the
//! test is skipped with a line that says so (`SKIPPED browser test ...`,
//! printed past cargo's capture), except under CI (`CI` set), where a
//! missing browser fails the test: CI installs it, so its absence is a
//! broken CI, not a reason to pass.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};

/// Where Debian installs Chromium.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// Where Debian installs ChromeDriver.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Chromium's flags: headless, and nothing that reaches for the network
/// (this machine's network is closed: background fetches are refused by
/// the dozen and slow the start).
const CHROMIUM_ARGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
];

/// A headless Chromium session; the driver process is killed on drop.
pub struct Browser {
    driver: Child,
    /// The WebDriver session.
    pub client: Client,
}

impl Browser {
    /// Starts ChromeDriver and a headless Chromium session; `None` (after
    /// printing `SKIPPED ...`) when the browser is not installed outside
    /// CI. Panics under CI when it is missing, and whenever it is
    /// installed but does not start.
    pub async fn start(test: &str) -> Option<Browser> {
        let missing: Vec<&str> = [CHROMIUM, CHROMEDRIVER]
            .into_iter()
            .filter(|p| !Path::new(p).exists())
            .collect();
        if !missing.is_empty() {
            assert!(
                std::env::var_os("CI").is_none(),
                "{test}: {} not installed under CI (.ci/run installs chromium and chromium-driver)",
                missing.join(" and ")
            );
            hexveil_fixtures::skip_notice(&format!(
                "browser test {test}: {} not installed (apt-get install chromium chromium-driver)",
                missing.join(" and ")
            ));
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let mut driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn chromedriver");
        // ChromeDriver says when it listens; wait for that line.
        let stdout = driver.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        loop {
            match lines.next() {
                Some(Ok(l)) if l.contains("started successfully") => break,
                Some(Ok(_)) => continue,
                other => panic!("chromedriver did not start: {other:?}"),
            }
        }
        // Keep draining its stdout so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            serde_json::json!({ "binary": CHROMIUM, "args": CHROMIUM_ARGS }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a headless Chromium session");
        Some(Browser { driver, client })
    }

    /// The text of the first element matching the CSS `selector`.
    pub async fn text(&self, selector: &str) -> String {
        self.client
            .find(Locator::Css(selector))
            .await
            .unwrap_or_else(|e| panic!("no element {selector}: {e}"))
            .text()
            .await
            .expect("an element's text")
    }

    /// The page's whole HTML as the browser has it now (after scripts).
    pub async fn html(&self) -> String {
        self.client.source().await.expect("the page source")
    }

    /// Polls `check` on the page's HTML every 100 ms for at most `within`;
    /// the HTML that satisfied it, or `None`.
    pub async fn wait_for_html(
        &self,
        within: Duration,
        mut check: impl FnMut(&str) -> bool,
    ) -> Option<String> {
        let until = tokio::time::Instant::now() + within;
        loop {
            let html = self.html().await;
            if check(&html) {
                return Some(html);
            }
            if tokio::time::Instant::now() >= until {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Sends one key (e.g. [`fantoccini::key::Key::Right`]) to the page.
    pub async fn key(&self, key: fantoccini::key::Key) {
        let body = self
            .client
            .find(Locator::Css("body"))
            .await
            .expect("a body");
        body.send_keys(&char::from(key).to_string())
            .await
            .expect("keys sent");
    }

    /// A PNG screenshot of the window, written to `path`.
    pub async fn screenshot(&self, path: &Path) {
        let png = self.client.screenshot().await.expect("a screenshot");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("the screenshot's folder");
        }
        std::fs::write(path, png).expect("the screenshot written");
    }

    /// Ends the session and the driver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
    }
}
