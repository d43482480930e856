//! Issue "Arbiter tools": the evidence behind every alert. Each error or
//! action alert carries the span of readings behind it, and `boardcast
//! replay --evidence` cuts a capture slice of them that replays to the
//! same alert, for every alert kind of every game.

use std::path::{Path, PathBuf};

use boardcast::board::Config;
use boardcast::event::{Alert, AlertKind, EventKind};
use boardcast::replay::replay_file;
use boardcast::replay::slice::{Slice, SliceStart, write_slices};
use boardcast_games::draughts;
use boardcast_sim::open::{OpenProfile, capture_text, read_xiangqi_games};
use boardcast_sim::open_faults::{self, OpenFaultKind};
use boardcast_sim::{self as sim, faults};

use crate::games::all_games;

/// A fresh folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("boardcast-evidence-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The error and action alerts a capture raised and did not withdraw.
fn acted_on(capture: &Path) -> Vec<Alert> {
    let replay = replay_file(capture, Config::default()).unwrap();
    replay
        .events
        .into_iter()
        .filter_map(|(_, e)| match e.kind {
            EventKind::Alert(a)
                if !a.cleared && a.kind.severity() != boardcast::event::Severity::Notice =>
            {
                Some(a)
            }
            _ => None,
        })
        .collect()
}

/// Slices `capture` and checks every slice: one per error or action alert,
/// named by its `evidence.seq`, replaying to an alert of the same kind for
/// the same side. Returns the slices.
fn sliced(capture: &Path, dir: &Path) -> (Vec<Alert>, Vec<Slice>) {
    let alerts = acted_on(capture);
    let slices = write_slices(capture, Config::default(), dir).unwrap();
    assert_eq!(
        slices.iter().map(|s| s.seq).collect::<Vec<_>>(),
        alerts
            .iter()
            .map(|a| a.evidence.unwrap().seq)
            .collect::<Vec<_>>(),
        "{}: one slice per alert",
        capture.display()
    );
    for (alert, slice) in alerts.iter().zip(&slices) {
        let again = acted_on(&slice.path);
        assert!(
            again
                .iter()
                .any(|a| a.kind == alert.kind && a.side == alert.side),
            "{}: {:?} {:?} not raised again from {:?}: {again:?}",
            slice.path.display(),
            alert.kind,
            alert.side,
            slice.from
        );
        assert!(slice.reproduced);
        let evidence = alert.evidence.unwrap();
        assert!(evidence.from_t_ms <= evidence.to_t_ms);
    }
    (alerts, slices)
}

/// How the slices of a set of alerts start, counted.
#[derive(Debug, Default)]
struct Starts {
    evidence: usize,
    game: usize,
    capture: usize,
}

impl Starts {
    fn add(&mut self, s: &Slice) {
        match s.from {
            SliceStart::Evidence => self.evidence += 1,
            SliceStart::GameStart => self.game += 1,
            SliceStart::Capture => self.capture += 1,
        }
    }
}

#[test]
fn chess_faults_on_a_dgt_board_slice_to_the_position_before_and_replay_to_the_same_alert() {
    let dir = folder("chess");
    let games = all_games();
    let mut starts = Starts::default();
    let mut kinds = std::collections::BTreeSet::new();
    for kind in faults::FaultKind::ALL {
        let mut done = 0;
        for (i, game) in games.iter().enumerate().skip(5).step_by(7) {
            if done == 2 {
                break;
            }
            let Some(case) = faults::inject(game, kind, i as u64) else {
                continue;
            };
            let path = dir.join(format!("{kind:?}-{i}.capture"));
            std::fs::write(&path, sim::dgt::capture_text(&case.session, &[])).unwrap();
            let out = dir.join(format!("{kind:?}-{i}"));
            let (alerts, slices) = sliced(&path, &out);
            assert!(
                alerts.iter().any(|a| a.kind == kind.alert()),
                "{kind:?} {i}"
            );
            for (a, s) in alerts.iter().zip(&slices) {
                kinds.insert(format!("{:?}", a.kind));
                if a.kind != AlertKind::Setup {
                    starts.add(s);
                }
            }
            done += 1;
        }
    }
    println!("chess slices start: {starts:?}; kinds {kinds:?}");
    assert!(
        starts.evidence * 4 >= (starts.evidence + starts.game + starts.capture) * 3,
        "{starts:?}"
    );
}

#[test]
fn draughts_and_xiangqi_faults_slice_to_the_position_before_and_replay_to_the_same_alert() {
    let dir = folder("games");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("games/tests/data");
    let dgames =
        draughts::read_pdn(&std::fs::read_to_string(data.join("english-draughts.pdn")).unwrap())
            .unwrap();
    let xgames =
        read_xiangqi_games(&std::fs::read_to_string(data.join("xiangqi-random.pgn")).unwrap())
            .unwrap();
    let mut starts = Starts::default();
    let mut check = |case: open_faults::OpenFaultCase, game: &str, name: String| {
        let meta = vec![("game".to_string(), game.to_string())];
        let path = dir.join(format!("{name}.capture"));
        std::fs::write(&path, capture_text(&case.session, &meta, true)).unwrap();
        let (alerts, slices) = sliced(&path, &dir.join(&name));
        if case.kind.alert().severity() != boardcast::event::Severity::Notice {
            assert!(
                alerts.iter().any(|a| a.kind == case.kind.alert()),
                "{name}: {alerts:?}"
            );
        }
        for (a, s) in alerts.iter().zip(&slices) {
            if a.kind != AlertKind::Setup {
                starts.add(s);
            }
        }
    };
    for (n, kind) in OpenFaultKind::DRAUGHTS.into_iter().enumerate() {
        let mut done = 0;
        for (i, g) in dgames.iter().enumerate().skip(n * 3 + 1) {
            let profile = OpenProfile {
                human: true,
                pieces: i % 2 == 0,
                rotated: false,
            };
            if let Some(case) = open_faults::inject_draughts(&g.moves, kind, profile, i as u64) {
                check(case, "draughts", format!("draughts-{kind:?}-{i}"));
                done += 1;
            }
            if done == 2 {
                break;
            }
        }
    }
    for (n, kind) in OpenFaultKind::XIANGQI.into_iter().enumerate() {
        let mut done = 0;
        for (i, moves) in xgames.iter().enumerate().skip(n * 3 + 1) {
            let profile = OpenProfile {
                human: true,
                pieces: i % 2 == 0,
                rotated: i % 3 == 0,
            };
            if let Some(case) = open_faults::inject_xiangqi(moves, kind, profile, i as u64) {
                check(case, "xiangqi", format!("xiangqi-{kind:?}-{i}"));
                done += 1;
            }
            if done == 2 {
                break;
            }
        }
    }
    println!("draughts and xiangqi slices start: {starts:?}");
    assert!(
        starts.evidence * 4 >= (starts.evidence + starts.game + starts.capture) * 3,
        "{starts:?}"
    );
}
