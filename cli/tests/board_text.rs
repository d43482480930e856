//! Issue 27, item 5: text a board supplies about itself is not trusted. A
//! DGT board whose serial number holds a newline and an escape byte (a
//! firmware fault, a forged device) is read, recorded, published and
//! resumed after a restart like any other, and forges no log line.

use std::time::Duration;

use boardcast_sim::pty::{SimBoard, SimOptions};

use crate::util::{BoardConf, Broker, Daemon, Subscriber, game, state_moves, write_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_serial_number_with_a_newline_forges_nothing_and_the_game_resumes() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "bt/#", "watcher", false).await;
    let g = game(1468, Some(12));
    // A DGT serial number is five bytes.
    let forged = "1\n2\u{1b}3";
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 3, SimOptions::fast(forged));
    let config = write_config(
        dir.path(),
        broker.port,
        "bt",
        &[BoardConf {
            id: "b1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let mut daemon = Daemon::start(&config);
    let state = sub
        .wait_for("every move", Duration::from_secs(60), |msgs| {
            let last = msgs
                .iter()
                .rev()
                .find(|m| m.topic == "bt/board/b1/state")?
                .json();
            (state_moves(&last) == g.sans).then_some(last)
        })
        .await;
    assert_eq!(state["serial"], "1?2?3", "{state}");
    assert!(daemon.stop().success(), "{}", daemon.log());
    let log = daemon.log();
    assert!(
        log.lines()
            .all(|l| l.len() > 11 && l.as_bytes()[4] == b'-' && l.as_bytes()[10] == b'T'),
        "a forged log line:\n{log}"
    );
    assert!(!log.contains('\u{1b}'), "an escape byte reached the log");

    // The capture replays to the game, and a restarted daemon takes the
    // game up from it (a connected state with every move).
    let capture = crate::util::capture_of(&dir.path().join("rec"), "b1");
    let replay = boardcast::replay::replay_file(&capture, Default::default()).unwrap();
    assert_eq!(replay.log.current().unwrap().sans, g.sans);
    let seen = sub.messages().len();
    let mut daemon = Daemon::start(&config);
    sub.wait_for("the game resumed", Duration::from_secs(30), |msgs| {
        let resumed = msgs[seen.min(msgs.len())..]
            .iter()
            .filter(|m| m.topic == "bt/board/b1/state")
            .map(|m| m.json())
            .any(|s| {
                s["status"] == "connected" && state_moves(&s) == g.sans && s["serial"] == "1?2?3"
            });
        resumed.then_some(())
    })
    .await;
    assert!(daemon.stop().success(), "{}", daemon.log());
}
