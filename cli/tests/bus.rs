//! Issue "Board families", item 2: DGT boards in bus mode. Four simulated
//! DGT boards chained on one pseudo-terminal line, read by the live daemon
//! into a real Mosquitto; each is a board of its own (topics, PGN,
//! capture). One unit leaves the chain mid-game and comes back: it is
//! reported offline, the others never notice, and every game ends exact,
//! with the moves made while it was away recovered in order from its
//! memory.

use std::time::Duration;

use boardcast::track::Config;
use boardcast_sim::bus::{BusUnit, SimBus};
use boardcast_sim::pty::Pace;
use boardcast_sim::{self as sim, Human};

use crate::util::{Broker, Daemon, Subscriber, fold_moves, game, state_moves, write_config};

const LONG: Duration = Duration::from_secs(90);

/// The test configuration for `units` on the line at `port`: the daemon's
/// settle times are the defaults divided by 4, as the play is 4 times
/// faster than real; the bus is polled every 20 ms.
fn bus_config(dir: &std::path::Path, broker: u16, port: &str, units: &[(&str, u16)]) -> String {
    let config = write_config(dir, broker, "bus", &[]);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text = text
        .replace(
            "handshake_ms = 1000\n",
            "handshake_ms = 1000\nbus_gap_ms = 20\n",
        )
        .replace("settle_base_ms = 50", "settle_base_ms = 112")
        .replace("settle_extendable_ms = 100", "settle_extendable_ms = 212")
        .replace("settle_takeback_ms = 300", "settle_takeback_ms = 375");
    for (i, (id, address)) in units.iter().enumerate() {
        text.push_str(&format!(
            "\n[[board]]\nid = \"{id}\"\nport = \"{port}\"\nprotocol = \"dgt-bus\"\n\
             bus_address = {address}\nnumber = {}\nwhite = \"White {id}\"\nblack = \"Black {id}\"\n",
            i + 11
        ));
    }
    std::fs::write(&config, text).unwrap();
    config.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_bus_boards_on_one_line_one_unplugged_and_replugged_mid_game_lose_no_move() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "bus/#", "watcher", false).await;
    let ids = ["b1", "b2", "b3", "b4"];
    let addresses = [1025u16, 300, 7, 12000];
    let units: Vec<BusUnit> = [3usize, 12, 21, 30]
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            let game = game(g, Some(30));
            // The third board stands turned round.
            let session = sim::simulate(&game, &mut Human::default(), 70 + i as u64, i == 2);
            BusUnit {
                address: addresses[i],
                game,
                session,
            }
        })
        .collect();
    let line = SimBus::start(
        dir.path(),
        "dgt-bus-line",
        units.clone(),
        Pace::Scaled {
            divisor: 4.0,
            cap_ms: 3_000,
        },
        Duration::from_millis(300),
    )
    .expect("a pseudo-terminal");
    let pairs: Vec<(&str, u16)> = ids.iter().copied().zip(addresses).collect();
    let config = bus_config(
        dir.path(),
        broker.port,
        &line.path().to_string_lossy(),
        &pairs,
    );
    let mut daemon = Daemon::start(config.as_ref());

    // Board b2 (address 300) leaves the chain at ply 8.
    let (gone_id, gone) = (ids[1], addresses[1]);
    let topic = format!("bus/board/{gone_id}/state");
    sub.wait_for("ply 8 on b2", LONG, |msgs| {
        msgs.iter()
            .filter(|m| m.topic == topic)
            .any(|m| m.json()["ply"].as_u64() >= Some(8))
            .then_some(())
    })
    .await;
    line.unplug_unit(gone);
    let unplugged_at = line.plies(gone);
    let offline = sub
        .wait_for("b2 offline", LONG, |msgs| {
            msgs.iter()
                .filter(|m| m.topic == topic)
                .map(|m| m.json())
                .find(|s| s["status"] == "offline" && s["ply"].as_u64() >= Some(8))
        })
        .await;
    assert_eq!(offline["serial"], "00300", "{offline}");
    // Moves are made while it is away: five more plies at least, more
    // than a whole-board read can explain (`reconstructor.depth` is 4):
    // the board's memory tells them, in order.
    while line.plies(gone) < unplugged_at + 5 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let away = line.plies(gone) - offline["ply"].as_u64().unwrap() as usize;
    assert!(away >= 5, "{away} plies made while away");
    line.plug_unit(gone);

    for (i, id) in ids.iter().enumerate() {
        let sans = &units[i].game.sans;
        let topic = format!("bus/board/{id}/state");
        let state = sub
            .wait_for(&format!("every move of {id}"), LONG, |msgs| {
                let last = msgs.iter().rev().find(|m| m.topic == topic)?.json();
                (state_moves(&last) == *sans).then_some(last)
            })
            .await;
        assert_eq!(state["status"], "connected", "{state}");
        assert_eq!(state["serial"], format!("{:05}", addresses[i]), "{state}");
        assert_eq!(state["number"], 11 + i, "{state}");
        assert_eq!(state["white"]["name"], format!("White {id}"), "{state}");
        assert_eq!(state["rotated"], i == 2, "{state}");
        let events = sub.json_on(&format!("bus/board/{id}/event"));
        assert_eq!(fold_moves(&events), *sans, "{id}: the game is exact");
        // Alerts are the arbiters' (issue 58).
        let errors: Vec<serde_json::Value> = sub
            .json_on(&format!("bus/arbiter/board/{id}/event"))
            .into_iter()
            .filter(|e| e["type"] == "alert" && e["severity"] == "action")
            .collect();
        assert!(errors.is_empty(), "{id}: {errors:#?}");
        if *id != gone_id {
            // The others never noticed.
            let states = sub.json_on(&topic);
            let first = states
                .iter()
                .position(|s| s["status"] == "connected")
                .expect("connected");
            assert!(
                states[first..].iter().all(|s| s["status"] == "connected"),
                "{id} went offline"
            );
        }
    }
    assert!(line.done());
    let log = daemon.log();
    assert!(
        log.contains("bus unit missing from the chain") && log.contains("unit=300"),
        "{log}"
    );
    // Back in the chain, b2 was asked for its memory, which told the moves
    // made while it was away, in order.
    let memory = log
        .lines()
        .find(|l| l.contains("board=b2") && l.contains("board memory: changes made while away"))
        .unwrap_or_else(|| panic!("b2's memory was not used:\n{log}"));
    assert!(!memory.contains("changes=0"), "{memory}");
    let status = daemon.stop();
    assert!(status.success(), "{}", daemon.log());

    // Each board has its own capture of the line, which replays alone to
    // its game.
    let rec = dir.path().join("rec");
    for (i, id) in ids.iter().enumerate() {
        let capture = crate::util::capture_of(&rec, id);
        let text = std::fs::read_to_string(&capture).unwrap();
        let header = text.lines().next().unwrap();
        assert!(
            header.starts_with(&format!(
                "# boardcast capture v1 protocol=dgt-bus board={id}"
            )) && header.contains(&format!("unit={}", addresses[i])),
            "{header}"
        );
        let replay = boardcast::replay::replay_file(&capture, Config::default()).unwrap();
        assert_eq!(
            replay.log.current().unwrap().sans,
            units[i].game.sans,
            "{id}"
        );
    }
}
