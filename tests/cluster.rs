//! Issue "Beyond one laptop", first part: a bridge given several brokers
//! (`[mqtt] url = [..]`, the nodes of a cluster) fails over to the next
//! when its broker dies, and the game reaches subscribers of the node it
//! moved to whole: every move in the retained state, and the moves made
//! after the failover as events.

use std::time::Duration;

use crate::util::{
    BoardConf, Broker, Daemon, SimBoard, SimOptions, Subscriber, game, write_config,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_whose_broker_dies_fails_over_to_the_next_and_loses_no_move() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Broker::start();
    let b = Broker::start();
    let on_a = Subscriber::connect(a.port, "fo/#", "watch-a", false).await;
    let on_b = Subscriber::connect(b.port, "fo/#", "watch-b", false).await;
    let g = game(40, Some(40));
    let board = SimBoard::new(dir.path(), "one", g.clone(), 11, SimOptions::fast("50001"));
    let config = write_config(
        dir.path(),
        a.port,
        "fo",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    // The same configuration with both nodes of the "cluster".
    let text = std::fs::read_to_string(&config).unwrap().replace(
        &format!("url = \"mqtt://127.0.0.1:{}\"", a.port),
        &format!(
            "url = [\"mqtt://127.0.0.1:{}\", \"mqtt://127.0.0.1:{}\"]",
            a.port, b.port
        ),
    );
    assert!(text.contains("url = ["));
    std::fs::write(&config, text).unwrap();
    let daemon = Daemon::start(&config);

    // The bridge publishes to the first node; a few moves in, it dies.
    on_a.wait_for(
        "a few moves on the first node",
        Duration::from_secs(60),
        |msgs| {
            let plies = msgs
                .iter()
                .filter(|m| m.topic == "fo/board/1/event" && m.json()["type"] == "move")
                .count();
            (plies >= 4).then_some(())
        },
    )
    .await;
    a.kill();
    // The second node gets the whole game: the retained state carries
    // every move, and the moves after the failover arrive as events.
    let state = on_b
        .wait_for(
            "the whole game on the second node",
            Duration::from_secs(90),
            |msgs| {
                let state = msgs
                    .iter()
                    .rev()
                    .find(|m| m.topic == "fo/board/1/state")?
                    .json();
                let moves: Vec<String> = state["moves"]
                    .as_array()?
                    .iter()
                    .map(|m| m.as_str().unwrap_or_default().to_string())
                    .collect();
                (moves.len() == g.sans.len()).then_some(moves)
            },
        )
        .await;
    assert_eq!(state, g.sans);
    let events_on_b = on_b
        .messages()
        .iter()
        .filter(|m| m.topic == "fo/board/1/event" && m.json()["type"] == "move")
        .count();
    assert!(events_on_b > 0, "no move event reached the second node");
    assert!(
        daemon.log().contains("trying the next broker"),
        "{}",
        daemon.log()
    );
    drop(daemon);
}
