//! The round ledger with real parts: a board whose game ended is set up
//! again (as players and arbiters do) and its next game begins, and the
//! PGN folder relay tools read (each game's file, `games.pgn`,
//! `index.json`) keeps the finished game, across a restart too.

use std::time::Duration;

use boardcast_sim::{self as sim, Human};

use crate::games::python_chess_mainlines;
use crate::util::{BoardConf, Broker, Daemon, SimBoard, SimOptions, Subscriber, game};

/// A session of `g` with human hands, ended by both kings in the centre
/// for `result` (a draw: one king on a light, one on a dark square).
fn kings_session(g: &sim::SourceGame, result: &str, seed: u64) -> sim::Session {
    let mut human = Human {
        takeback: 0.0,
        ..Human::default()
    };
    let mut session = sim::simulate(g, &mut human, seed, false);
    let mut last = g.start.clone();
    for &m in &g.moves {
        last = last.play(m);
    }
    sim::faults::chess::kings_to_centre(&mut session, &last, result, seed)
        .expect("the centre has room for the kings");
    session
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_stays_in_the_pgn_folder_when_its_board_is_set_up_again() {
    if !crate::util::require(&[
        crate::util::Tool::Mosquitto,
        crate::util::Tool::Python("chess"),
    ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "ldg/#", "watcher", false).await;
    let pgn_dir = dir.path().join("pgn");
    let first = game(3, Some(12));
    let next_game = game(5, Some(6));
    let first_session = kings_session(&first, "1/2-1/2", 7);
    let next_session = sim::simulate(&next_game, &mut Human::default(), 8, false);
    let next: sim::pty::NextSession = Box::new(move |_| next_session.clone());
    let board = SimBoard::start(
        dir.path(),
        "one",
        first.clone(),
        first_session,
        Some(next),
        SimOptions {
            // The pieces set up again soon after the result, as in the drill.
            between_games: Duration::from_millis(1_600),
            ..SimOptions::fast("61001")
        },
    )
    .expect("a simulated board");
    let extra = format!(
        "\n[event]\nround = 3\npgn_dir = \"{}\"\n",
        pgn_dir.display()
    );
    let config = crate::util::write_config_with(
        dir.path(),
        &format!("mqtt://127.0.0.1:{}", broker.port),
        &extra,
        "ldg",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let mut daemon = Daemon::start(&config);
    let events = "ldg/arbiter/board/1/event";
    // The draw, then the next game's first moves on the same board.
    sub.wait_for("the next game under way", Duration::from_secs(90), |msgs| {
        let e: Vec<serde_json::Value> = msgs
            .iter()
            .filter(|m| m.topic == events)
            .map(|m| m.json())
            .collect();
        let starts = e.iter().filter(|e| e["type"] == "game_start").count();
        let ended = e
            .iter()
            .any(|e| e["type"] == "game_end" && e["result"] == "1/2-1/2");
        let last_start = e.iter().rposition(|e| e["type"] == "game_start")?;
        let moved = e[last_start..].iter().any(|e| e["type"] == "move");
        (starts >= 2 && ended && moved).then_some(())
    })
    .await;
    // The folder writer writes twice a second.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let check = |when: &str| {
        let round = pgn_dir.join("round-3");
        let file = std::fs::read_to_string(round.join("game-1.pgn")).unwrap();
        assert!(file.contains("[Result \"1/2-1/2\"]"), "{when}: {file}");
        assert_eq!(
            python_chess_mainlines(&file),
            vec![first.sans.clone()],
            "{when}: {file}"
        );
        let all = std::fs::read_to_string(round.join("games.pgn")).unwrap();
        assert_eq!(
            python_chess_mainlines(&all),
            vec![first.sans.clone()],
            "{when}"
        );
        let index: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(round.join("index.json")).unwrap())
                .unwrap();
        let pairing = &index["pairings"][0];
        assert_eq!(pairing["result"], "1/2-1/2", "{when}: {index}");
        assert_eq!(pairing["live"], false, "{when}: {index}");
    };
    check("the board set up again");
    // A restart: the finished game is still the round's, though the board
    // plays another game now.
    assert!(daemon.stop().success(), "{}", daemon.log());
    let daemon = Daemon::start(&config);
    tokio::time::sleep(Duration::from_secs(4)).await;
    check("after a restart");
    assert!(
        std::fs::read_to_string(dir.path().join("rec").join("ledger.jsonl"))
            .unwrap()
            .contains("1/2-1/2")
    );
    drop(daemon);
    drop(board);
}
