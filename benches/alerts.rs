//! Arbiter alerts over the real games in `tests/data/` with injected
//! faults: recall, side attribution, record exactness and false alarms.
//!
//! `cargo bench --bench alerts` injects each fault kind into at least 200
//! games (human handling), replays every capture, and prints per kind: how
//! often the expected alert was raised (recall), with the right side, the
//! record published as expected, error alerts beyond the expected one that
//! were never withdrawn, and how often displaced pieces were reported first
//! (an illegal move that stood past the misplacement delay before the
//! opponent began to reply, withdrawn then), and the `retract` events
//! (final moves shown, then withdrawn: a wrong move shown, or an illegal
//! move taken back).
//! False alarms on fault-free games come from `cargo bench --bench replay`
//! (`error alerts`). `BENCH_CASES=N` sets the cases per kind (default 250);
//! `BENCH_DUMP=dir` writes the capture of each case missed;
//! `BENCH_KIND=<kind>` (as the table names it) runs one kind.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use boardcast::replay::replay_reader;
use boardcast::track::Config;
use boardcast_sim::{self as sim, faults};

fn main() {
    let cases: usize = std::env::var("BENCH_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(250);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut games = sim::read_games(BufReader::new(
        File::open(dir.join("master-games.pgn")).unwrap(),
    ))
    .unwrap();
    games.extend(
        sim::read_games(BufReader::new(
            File::open(dir.join("chess960-selfplay.pgn")).unwrap(),
        ))
        .unwrap(),
    );
    println!(
        "{:<18} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8} {:>12} {:>13} {:>9}",
        "fault",
        "cases",
        "games",
        "recall",
        "side",
        "record",
        "cleared",
        "extra errors",
        "misplaced 1st",
        "retracts"
    );
    let only = std::env::var("BENCH_KIND").ok();
    for (place, kind) in faults::FaultKind::CHESS.into_iter().enumerate() {
        if only.as_ref().is_some_and(|k| *k != format!("{kind:?}")) {
            continue;
        }
        // The kind's place in the chess table numbers its cases.
        let (mut n, mut raised, mut side, mut exact, mut cleared, mut extra) = (0, 0, 0, 0, 0, 0);
        let (mut reclassified, mut retracted) = (0, 0);
        let mut misses = Vec::new();
        let mut distinct = std::collections::HashSet::new();
        for attempt in 0..40 * games.len() {
            if n >= cases {
                break;
            }
            let i = (attempt + place * 37) % games.len();
            let game = &games[i];
            let Some(case) = faults::chess::inject(game, kind, attempt as u64) else {
                continue;
            };
            distinct.insert(i);
            let text = sim::dgt::capture_text(&case.session, &[]);
            let replay =
                replay_reader(text.as_bytes(), Config::default(), "fault".as_ref()).unwrap();
            let c = case.check(&replay);
            n += 1;
            raised += usize::from(c.raised);
            side += usize::from(c.side_right);
            exact += usize::from(c.exact);
            cleared += usize::from(c.cleared);
            extra += c.extra_errors;
            reclassified += usize::from(c.reclassified);
            retracted += c.retracted;
            let missed = !c.raised || !c.side_right || !c.exact || c.extra_errors > 0;
            if missed && misses.len() < 3 {
                misses.push(format!("game {} at ply {}: {c:?}", i + 1, case.at_ply));
            }
            // `BENCH_DUMP=dir`: each miss's capture, to replay on its own.
            if let Some(dir) = std::env::var_os("BENCH_DUMP").filter(|_| missed) {
                let name = format!("{kind:?}-game{}-attempt{attempt}.capture", i + 1);
                std::fs::create_dir_all(&dir).expect("BENCH_DUMP folder");
                std::fs::write(Path::new(&dir).join(name), &text).expect("dump");
            }
        }
        let pct = |k: usize| format!("{:.1}%", 100.0 * k as f64 / n.max(1) as f64);
        println!(
            "{:<18} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8} {:>12} {:>13} {:>9}",
            format!("{kind:?}"),
            n,
            distinct.len(),
            pct(raised),
            pct(side),
            pct(exact),
            pct(cleared),
            extra,
            pct(reclassified),
            retracted
        );
        for m in misses {
            println!("   miss: {m}");
        }
    }
}
