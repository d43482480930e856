//! Issue 58, part 3: durable or refused. `boardcast run` (the first run,
//! its demo boards and its own broker) with its data folder on a small
//! tmpfs that is then filled: every change on the desk (the first
//! password, a pairing file, a round, an assignment, a typed result, a
//! round start) is answered `507` "not kept: the disk is full", and the
//! desk shows nothing a restart forgets: after the disk is freed and the
//! daemon killed and started again, `/desk/state` is what the desk last
//! answered.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::desk::{TRF, get_with, post_form, session_cookie};
use crate::hardening::request;
use crate::recovery::Tmpfs;
use crate::util::{binary, free_port};

const PASSWORD: &str = "first run pw";

/// `boardcast run` with no configuration, its data in `data`; its web
/// port once it listens.
struct FirstRun {
    child: Child,
    web: u16,
    log: PathBuf,
}

impl FirstRun {
    fn start(dir: &Path, data: &Path, name: &str) -> FirstRun {
        let (web, broker) = (free_port(), free_port());
        let log = dir.join(format!("{name}.log"));
        let child = Command::new(binary())
            .args(["run", "--web", &format!("127.0.0.1:{web}")])
            .args(["--broker", &format!("127.0.0.1:{broker}")])
            .arg("--data")
            .arg(data)
            .env("BOARDCAST_CONFIG", dir.join("none.toml"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let run = FirstRun { child, web, log };
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", web)).is_err() {
            assert!(std::time::Instant::now() < deadline, "{}", run.log());
            std::thread::sleep(Duration::from_millis(100));
        }
        // The page listens a moment before the desk is set up on it.
        let desk = || {
            request(
                web,
                "GET /desk HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            )
            .0
        };
        while desk() == 404 {
            assert!(std::time::Instant::now() < deadline, "{}", run.log());
            std::thread::sleep(Duration::from_millis(100));
        }
        run
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A form POST from the page, with `cookie`.
    fn post(&self, path: &str, body: &str, cookie: &str) -> (u16, String) {
        post_form(self.web, path, body, cookie)
    }

    /// The pairing file uploaded as `name`.
    fn upload(&self, name: &str, cookie: &str) -> (u16, String) {
        let trf = std::fs::read_to_string(Path::new(crate::ROOT).join(TRF)).unwrap();
        request(
            self.web,
            &format!(
                "POST /desk/trf?name={name} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{trf}",
                trf.len(),
                port = self.web,
            ),
        )
    }

    /// What the desk keeps of `/desk/state`.
    fn kept(&self, cookie: &str) -> Value {
        let (code, reply) = get_with(self.web, "/desk/state", cookie);
        assert_eq!(code, 200, "{reply}");
        kept_of(&reply)
    }
}

impl Drop for FirstRun {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of an HTTP reply.
fn body(reply: &str) -> &str {
    reply.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

/// What the desk keeps of a state answer (`/desk/state`, or a change's
/// 200): the pairing file, the round chosen and started, and each
/// pairing's sensor board and typed result (not the live boards).
fn kept_of(reply: &str) -> Value {
    let state: Value = serde_json::from_str(body(reply)).unwrap_or_else(|e| panic!("{e}: {reply}"));
    let pairings: Vec<Value> = state["pairings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| serde_json::json!([p["board"], p["sensor"], p["typed"]]))
        .collect();
    serde_json::json!({
        "trf": state["trf"]["name"],
        "round": state["round"],
        "started": state["started"],
        "pairings": pairings,
    })
}

/// Fills the disk under `filler` to its last byte.
fn fill(filler: &Path) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(filler)
        .unwrap();
    for size in [1 << 20, 4096, 1] {
        let block = vec![0u8; size];
        while f.write_all(&block).is_ok() {}
    }
}

/// A request made again and again: its status and reply.
type Attempt<'a> = &'a dyn Fn() -> (u16, String);

/// Asserts `reply` is a refusal for a full disk.
fn not_kept(what: &str, (code, reply): (u16, String)) {
    assert_eq!(code, 507, "{what}: {reply}");
    assert!(
        reply.contains("not kept: the disk is full"),
        "{what}: {reply}"
    );
}

#[test]
fn every_desk_change_on_a_full_disk_is_refused_and_a_restart_finds_what_was_shown() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let _tmpfs = Tmpfs::mount(&data, "8m");
    let filler = data.join("filler");
    let run = FirstRun::start(dir.path(), &data, "first");
    let twice = format!("key={0}&again={0}", PASSWORD.replace(' ', "+"));

    // The first password, on a full disk: refused, and none is set.
    fill(&filler);
    not_kept("the first password", run.post("/desk/password", &twice, ""));
    let (code, page) = request(
        run.web,
        "GET /desk HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(code, 401);
    assert!(page.contains("first run"), "no password is set: {page}");

    // Space: the password, a pairing file and an assignment are kept.
    std::fs::remove_file(&filler).unwrap();
    let (code, reply) = run.post("/desk/password", &twice, "");
    assert_eq!(code, 303, "{reply}\n{}", run.log());
    let cookie = session_cookie(&reply);
    let (code, reply) = run.upload("round.trf", &cookie);
    assert_eq!(code, 200, "{reply}");
    let (code, reply) = run.post("/desk/assign", "board=1&number=1", &cookie);
    assert_eq!(code, 200, "{reply}");
    let shown = kept_of(&reply);
    assert_eq!(shown["trf"], "round.trf", "{shown}");
    assert_eq!(shown["round"], 2, "{shown}");
    assert_eq!(shown["pairings"][0], serde_json::json!([1, "1", null]));

    // The disk full again: every change is refused, and nothing changes.
    let attempts: [(&str, Attempt<'_>); 5] = [
        ("a pairing file", &|| run.upload("other.trf", &cookie)),
        ("a round", &|| run.post("/desk/round", "round=1", &cookie)),
        ("an assignment", &|| {
            run.post("/desk/assign", "board=2&number=2", &cookie)
        }),
        ("a typed result", &|| {
            run.post("/desk/typed", "number=3&result=1-0", &cookie)
        }),
        ("a round start", &|| run.post("/desk/start", "", &cookie)),
    ];
    for (what, attempt) in attempts {
        // Topped up: whatever the daemon freed meanwhile is taken again.
        fill(&filler);
        not_kept(what, attempt());
        assert_eq!(run.kept(&cookie), shown, "after {what} was refused");
    }
    // The round was not started on any board.
    let (_, state) = get_with(run.web, "/desk/state", &cookie);
    let state: Value = serde_json::from_str(body(&state)).unwrap();
    assert!(
        state["boards"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["round"] != 2),
        "{state}"
    );

    // Space again: a change is kept; the daemon is killed and restarted.
    std::fs::remove_file(&filler).unwrap();
    let (code, reply) = run.post("/desk/typed", "number=3&result=1-0", &cookie);
    assert_eq!(code, 200, "{reply}");
    let shown = kept_of(&reply);
    assert_eq!(shown["pairings"][2], serde_json::json!([3, null, "1-0"]));
    drop(run);
    let run = FirstRun::start(dir.path(), &data, "again");
    let key = format!("key={}", PASSWORD.replace(' ', "+"));
    let (code, reply) = run.post("/desk/login", &key, "");
    assert_eq!(code, 303, "the password was kept: {reply}\n{}", run.log());
    let cookie = session_cookie(&reply);
    // (The boards' list may take a moment to fill after the start.)
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while run.kept(&cookie) != shown && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(run.kept(&cookie), shown, "a restart finds what was shown");

    // The journal holds the kept changes, whole, and none refused.
    let journal = std::fs::read_to_string(data.join("desk/actions.jsonl")).unwrap();
    let actions: Vec<String> = journal
        .lines()
        .map(|l| {
            let a: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}"));
            format!(
                "{} {}",
                a["action"].as_str().unwrap(),
                a["detail"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        actions,
        [
            "choose_password first run",
            "load_pairings round.trf",
            "assign sensor board 1 plays pairing board 1",
            "type_result pairing board 3: 1-0",
            "login ",
        ],
        "{journal}"
    );
}
