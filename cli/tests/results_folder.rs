//! A round of boards written to the PGN folder relay tools read, checked
//! with python-chess (moved from tests/results.rs).

use boardcast::replay::replay_reader;
use boardcast::track::Config;
use boardcast_sim::{self as sim, Human};

use crate::games::{all_games, python_chess_mainlines};

#[test]
fn a_round_of_boards_makes_the_folder_relay_tools_read_and_the_next_round_leaves_it_alone() {
    if !crate::util::require(&[crate::util::Tool::Python("chess")]) {
        return;
    }
    use boardcast::sink::folder::{BoardGame, Folder};
    use boardcast::tournament::{EventInfo, parse_csv};
    let games = all_games();
    let pairings = parse_csv(
        "board,white,black,white_rating,black_rating,white_fide_id\n1,\"Morphy, Paul\",\"Anderssen, Adolf\",2690,2600,100\n2,\"Lasker, Emanuel\",\"Tarrasch, Siegbert\",,,\n3,\"Capablanca, Jose\",\"Alekhine, Alexander\",,,\n",
        "round1.csv",
    )
    .unwrap();
    let event = EventInfo {
        name: "Simulated Open".into(),
        site: "Test Hall".into(),
        date: "2026.11.22".into(),
        round: 1,
    };
    let dir = tempfile::tempdir().unwrap();
    let folder = Folder::new(dir.path());
    let play_round = |first_game: usize| -> Vec<boardcast::sink::record::GameRecord> {
        (0..3)
            .map(|b| {
                let game = &games[first_game + b];
                let session =
                    sim::simulate(game, &mut Human::default(), (first_game + b) as u64, false);
                let text = sim::dgt::capture_text(&session, &[]);
                let replay =
                    replay_reader(text.as_bytes(), Config::default(), "r".as_ref()).unwrap();
                replay.log.current().unwrap().clone()
            })
            .collect()
    };
    let round1 = play_round(30);
    let boards: Vec<BoardGame<'_>> = round1
        .iter()
        .enumerate()
        .map(|(i, record)| BoardGame {
            board: i as u32 + 1,
            pairing: pairings.board(i as u32 + 1),
            record,
        })
        .collect();
    folder.write_round(&event, 1, 1, &boards).unwrap();
    let r1 = dir.path().join("round-1");
    for b in 1..=3u32 {
        let pgn = std::fs::read_to_string(r1.join(format!("game-{b}.pgn"))).unwrap();
        assert!(pgn.contains(&format!("[Round \"1.{b}\"]")));
        assert!(
            pgn.contains("[Event \"Simulated Open\"]") && pgn.contains("[Date \"2026.11.22\"]")
        );
        assert_eq!(
            python_chess_mainlines(&pgn),
            vec![games[30 + b as usize - 1].sans.clone()]
        );
    }
    let first = std::fs::read_to_string(r1.join("game-1.pgn")).unwrap();
    assert!(
        first.contains("[White \"Morphy, Paul\"]")
            && first.contains("[WhiteElo \"2690\"]")
            && first.contains("[WhiteFideId \"100\"]")
    );
    let all = std::fs::read_to_string(r1.join("games.pgn")).unwrap();
    assert_eq!(python_chess_mainlines(&all).len(), 3);
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(r1.join("index.json")).unwrap()).unwrap();
    assert_eq!(index["pairings"][0]["white"]["lname"], "Morphy");
    assert_eq!(index["pairings"][0]["white"]["fname"], "Paul");
    assert_eq!(index["pairings"].as_array().unwrap().len(), 3);
    let snapshot: Vec<(String, Vec<u8>)> = std::fs::read_dir(&r1)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    // Round 2 is written; round 1's files stay byte for byte.
    let round2 = play_round(40);
    let boards: Vec<BoardGame<'_>> = round2
        .iter()
        .enumerate()
        .map(|(i, record)| BoardGame {
            board: i as u32 + 1,
            pairing: None,
            record,
        })
        .collect();
    folder
        .write_round(
            &EventInfo {
                round: 2,
                ..event.clone()
            },
            2,
            2,
            &boards,
        )
        .unwrap();
    for (name, bytes) in &snapshot {
        assert_eq!(
            &std::fs::read(r1.join(name)).unwrap(),
            bytes,
            "{name} changed"
        );
    }
    let tournament: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(tournament["rounds"].as_array().unwrap().len(), 2);
    assert_eq!(tournament["rounds"][0]["count"], 3);
    assert!(dir.path().join("round-2/games.pgn").exists());
}
