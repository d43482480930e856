//! Issue "Board families": the bundled games played on simulated
//! Millennium ChessLink boards and on chess boards speaking the open
//! protocol (with piece identity), clean and with human handling, every
//! fifth board turned round, replay through each family's driver into the
//! same reconstructor exactly, with no error alert.

use boardcast::family::Family;
use boardcast::replay::replay_reader;
use boardcast::track::Config;
use boardcast_sim::{self as sim, Clean, Human, Profile};

use crate::games::{all_games, error_alerts};

/// Plays every `step`-th bundled game on a `protocol` board and checks the
/// replay; returns how many games were played.
fn every_game_replays_exactly_on(protocol: Family, human: bool, step: usize) -> usize {
    let games = all_games();
    let mut played = 0;
    for (i, game) in games.iter().enumerate().step_by(step) {
        // A Certabo board calibrates from the standard start position seen
        // the normal way round (docs/boards.md).
        let certabo = protocol == Family::Certabo;
        if certabo && game.start != boardcast::games::chess::Position::standard() {
            continue;
        }
        let rotated = !certabo && i % 5 == 4;
        let mut clean = Clean;
        let mut person = Human::default();
        let profile: &mut dyn Profile = if human { &mut person } else { &mut clean };
        let session = sim::simulate(game, profile, i as u64, rotated);
        let text = sim::family::capture_text(&session, protocol);
        let replay = replay_reader(text.as_bytes(), Config::default(), "family".as_ref())
            .unwrap_or_else(|e| panic!("{}: game {}: {e}", protocol.name(), i + 1));
        let check = sim::check::compare(game, &session, &replay);
        assert!(
            check.exact,
            "{} game {} (human {human}, rotated {rotated}): right up to ply {} of {}",
            protocol.name(),
            i + 1,
            check.plies_right,
            check.plies
        );
        let errors = error_alerts(&replay);
        assert!(
            errors.is_empty(),
            "{} game {}: {errors:?}",
            protocol.name(),
            i + 1
        );
        played += 1;
    }
    played
}

#[test]
fn bundled_games_replay_exactly_on_millennium_boards() {
    assert!(every_game_replays_exactly_on(Family::Millennium, false, 5) >= 400);
    assert!(every_game_replays_exactly_on(Family::Millennium, true, 11) >= 190);
}

#[test]
fn bundled_games_replay_exactly_on_certabo_boards() {
    assert!(every_game_replays_exactly_on(Family::Certabo, false, 5) >= 380);
    assert!(every_game_replays_exactly_on(Family::Certabo, true, 11) >= 170);
}

#[test]
fn bundled_games_replay_exactly_on_open_protocol_chess_boards() {
    assert!(every_game_replays_exactly_on(Family::Open, false, 5) >= 400);
    assert!(every_game_replays_exactly_on(Family::Open, true, 11) >= 190);
}

/// Plays every `step`-th bundled standard game on an open-protocol board
/// that senses occupancy only (standing the normal way round, as the
/// limits in docs/boards.md require) and checks the replay. Games with an
/// underpromotion are left out: an occupancy board reads every promotion
/// as a queen. Returns how many games were played, and those that went
/// wrong.
fn every_game_replays_exactly_on_occupancy_boards(
    human: bool,
    step: usize,
    capture_beside: f64,
) -> (usize, Vec<String>) {
    let games = all_games();
    let mut played = 0;
    let mut failures = Vec::new();
    for (i, game) in games.iter().enumerate().step_by(step) {
        let underpromotes = game.moves.iter().any(|m| {
            m.promotion()
                .is_some_and(|r| r != boardcast::games::chess::Role::Queen)
        });
        if game.start != boardcast::games::chess::Position::standard() || underpromotes {
            continue;
        }
        let mut clean = Clean;
        let mut person = Human {
            capture_beside,
            ..Human::default()
        };
        let profile: &mut dyn Profile = if human { &mut person } else { &mut clean };
        let session = sim::simulate(game, profile, i as u64, false);
        let text = sim::family::occupancy_capture_text(&session);
        let replay = replay_reader(text.as_bytes(), Config::default(), "occupancy".as_ref())
            .unwrap_or_else(|e| panic!("game {}: {e}", i + 1));
        let check = sim::check::compare(game, &session, &replay);
        if !check.exact {
            failures.push(format!(
                "game {} right up to ply {} of {}",
                i + 1,
                check.plies_right,
                check.plies
            ));
            played += 1;
            continue;
        }
        let errors = error_alerts(&replay);
        if !errors.is_empty() {
            failures.push(format!("game {}: {errors:?}", i + 1));
        }
        played += 1;
    }
    (played, failures)
}

#[test]
fn bundled_games_replay_exactly_on_occupancy_only_chess_boards() {
    let (played, failures) = every_game_replays_exactly_on_occupancy_boards(false, 5, 0.0);
    assert!(played >= 380, "{played}");
    assert!(failures.is_empty(), "clean handling: {failures:?}");
    // Human handling (pieces slid through other squares, captures either
    // way round, takebacks, knocks): every game exact with no error alert.
    let (played, failures) = every_game_replays_exactly_on_occupancy_boards(true, 3, 0.0);
    assert!(played >= 600, "{played}");
    assert!(
        failures.is_empty(),
        "human handling: {} of {played} went wrong: {failures:?}",
        failures.len()
    );
}

/// Issue 28: the same games with captures made in three touches (the
/// capturing piece set down beside its victim or on its way, the victim
/// lifted, the piece moved on) on one capture in ten: every game exact
/// with no error alert, as on boards that identify pieces.
#[test]
fn captures_in_three_touches_on_occupancy_only_chess_boards() {
    let (played, failures) = every_game_replays_exactly_on_occupancy_boards(true, 3, 0.1);
    assert!(played >= 600, "{played}");
    assert!(
        failures.is_empty(),
        "three-touch captures: {} of {played} went wrong: {failures:?}",
        failures.len()
    );
}

/// Live, a line's bytes are decoded once, by the line's driver, and each
/// board's pipeline takes the events; `replay` decodes the capture itself.
/// Both must read alike, also across a reconnection in the middle of a
/// game, cut in the middle of a frame: the line's driver is reopened
/// (marked `# opened` in the capture) and keeps what it learnt of the
/// board (a Certabo's calibration, a Millennium's square order).
#[test]
fn a_line_decoded_once_reads_as_its_capture_replays_across_a_reconnection() {
    use boardcast::capture::{self, Direction};
    use boardcast::event::GameId;
    use boardcast::family::{DriverOptions, for_family};
    use boardcast::pipeline::BoardPipeline;
    use boardcast::setup::BoardSetup;

    let games = all_games();
    for (protocol, i, rotated) in [
        (Family::Millennium, 10usize, true),
        (Family::Certabo, 12, false),
        (Family::Open, 14, true),
    ] {
        let game = &games[i];
        assert_eq!(game.start, boardcast::games::chess::Position::standard());
        let session = sim::simulate(game, &mut Human::default(), i as u64, rotated);
        let text = sim::family::capture_text(&session, protocol);
        let (header, reader) = capture::Reader::new(text.as_bytes()).unwrap();
        let chunks: Vec<capture::Chunk> = reader.map(Result::unwrap).collect();
        // The line is lost in the middle of the game, half way through a
        // frame from the board, and opened again.
        let from_board: Vec<usize> = (0..chunks.len())
            .filter(|&c| chunks[c].dir == Direction::FromBoard && chunks[c].bytes.len() > 4)
            .collect();
        let cut = from_board[from_board.len() / 2];
        let mut with_reopen = Vec::new();
        for (c, chunk) in chunks.iter().enumerate() {
            if c == cut {
                let half = chunk.bytes.len() / 2;
                with_reopen.push(capture::Chunk {
                    bytes: chunk.bytes[..half].to_vec(),
                    ..chunk.clone()
                });
                with_reopen.push(capture::Chunk {
                    bytes: Vec::new(),
                    dir: Direction::Opened,
                    ..chunk.clone()
                });
            }
            with_reopen.push(chunk.clone());
        }
        let setup = BoardSetup::new("t", header.protocol, GameId::Chess);
        let options: DriverOptions = setup.driver_options();

        // Live: the line's driver decodes, the pipeline takes the events.
        let mut line = for_family(header.protocol, &options);
        let mut live = BoardPipeline::new(&setup, Config::default());
        // Replay: the pipeline decodes the capture's bytes itself.
        let mut replayed = BoardPipeline::new(&setup, Config::default());
        for chunk in &with_reopen {
            match chunk.dir {
                Direction::FromBoard => {
                    let mut events = Vec::new();
                    line.feed(chunk.t_ms, &chunk.bytes, &mut events);
                    live.handle_decoded(chunk.t_ms, events);
                }
                Direction::Opened => line.reopen(),
                _ => live.handle_bytes(chunk.t_ms, chunk.dir, &chunk.bytes),
            }
            replayed.handle_bytes(chunk.t_ms, chunk.dir, &chunk.bytes);
        }
        live.finish();
        replayed.finish();
        let drain =
            |p: &mut BoardPipeline| std::iter::from_fn(|| p.poll_published()).collect::<Vec<_>>();
        let (live_events, replay_events) = (drain(&mut live), drain(&mut replayed));
        assert_eq!(live_events, replay_events, "{}", protocol.name());
        let sans: Vec<String> = live_events
            .iter()
            .filter_map(|(_, e)| match &e.kind {
                boardcast::event::EventKind::Move { notation, .. } => Some(notation.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(sans, game.sans, "{}: every move, once", protocol.name());
        // The frame cut short was dropped by both, not read as garbage.
        assert_eq!(live.stats(), replayed.stats(), "{}", protocol.name());
        assert_eq!(live.stats().bad_frames, 0, "{}", protocol.name());
    }
}
