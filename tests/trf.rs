//! Issue 30, FIDE TRF: pairings read from a TRF-16 file as pairing
//! programs export it, and the round's results written back with every
//! other byte as read (tests/data/trf/README.md says where the files come
//! from).

use std::collections::BTreeMap;
use std::path::PathBuf;

use boardcast::tournament::trf::{self, Code, Trf};
use boardcast::tournament::{MAX_PAIRINGS_BYTES, PairingsError, read_pairings, read_pairings_file};

#[path = "trf_order.rs"]
mod order;

fn data(name: &str) -> PathBuf {
    PathBuf::from(crate::ROOT).join("tests/data/trf").join(name)
}

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap()
}

fn example() -> Trf {
    trf::parse(&bytes("fide-example.trf")).unwrap()
}

/// Board number to result.
fn results(list: &[(u32, &str)]) -> BTreeMap<u32, String> {
    list.iter().map(|(b, r)| (*b, r.to_string())).collect()
}

/// `(white, black)` start ranks of each board, in board order.
fn order(t: &Trf, round: u32) -> Vec<(u32, u32)> {
    t.boards(round).iter().map(|b| (b.white, b.black)).collect()
}

/// The text of a file's lines, each without its end.
fn lines_of(t: &Trf) -> Vec<Vec<u8>> {
    (1..=t.line_count())
        .map(|n| t.line(n).unwrap().to_vec())
        .collect()
}

#[test]
fn the_fide_example_reads_to_the_round_to_be_played() {
    let p = read_pairings(&data("fide-example.trf")).unwrap();
    // Rounds 1-3 are played, round 4 is paired with blank results.
    assert_eq!(p.round, Some(4));
    let names: Vec<(&str, &str)> = p
        .pairings
        .iter()
        .map(|b| (b.white.name.as_str(), b.black.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("Okafor, Chidi", "Lindqvist, Erik"),
            ("Moreau, Claire", "Novak, Tomas"),
            ("Kowalska, Anna", "Brown, Samuel"),
            ("Dubois, Marc", "Alvarez, Diego"),
        ]
    );
    let boards: Vec<u32> = p.pairings.iter().map(|b| b.board).collect();
    assert_eq!(boards, [1, 2, 3, 4]);
    let lindqvist = &p.board(1).unwrap().black;
    assert_eq!(lindqvist.title.as_deref(), Some("GM"));
    assert_eq!(lindqvist.rating, Some(2612));
    assert_eq!(lindqvist.fide_id, Some(1_700_001));
    assert_eq!(lindqvist.federation.as_deref(), Some("SWE"));
    let moreau = &p.board(2).unwrap().white;
    assert_eq!(
        (moreau.title.as_deref(), moreau.fide_id),
        (Some("IM"), Some(22_000_020))
    );
    // Blank fields are none: no title, no rating, no FIDE id.
    let okafor = &p.board(1).unwrap().white;
    assert_eq!(okafor.title, None);
    let kowalska = &p.board(3).unwrap().white;
    assert_eq!(kowalska.rating, None);
    assert_eq!(p.board(4).unwrap().white.fide_id, None);

    let t = example();
    assert_eq!(t.byes(4), [(5, Some(Code::HalfBye))]);
    assert_eq!(
        t.tournament.name.as_deref(),
        Some("Example Open (built from the FIDE TRF-16 column table)")
    );
    assert_eq!(t.tournament.city.as_deref(), Some("Torino"));
    assert_eq!(t.tournament.date(Some(4)).as_deref(), Some("2024.03.04"));
    assert_eq!(t.tournament.date(None).as_deref(), Some("2024.03.01"));
    assert!(
        t.tournament
            .time_control
            .as_deref()
            .unwrap()
            .starts_with("90 min/40")
    );
    let tanaka = &t.players[&5];
    assert_eq!(
        (
            tanaka.sex,
            tanaka.title.as_deref(),
            tanaka.points,
            tanaka.rank
        ),
        (Some('w'), Some("WFM"), Some(5), Some(9))
    );
    assert_eq!(t.paired_rounds(), [1, 2, 3, 4]);
}

#[test]
fn boards_are_ordered_by_top_score_then_score_sum_then_start_rank() {
    let t = example();
    // Round 2: four pairs, two of them with the top score 1 and the sum 2:
    // the one with start rank 1 first.
    assert_eq!(order(&t, 2), [(2, 1), (4, 9), (6, 3), (7, 5)]);
    // Round 3: 7-2 (1.5 + 1.5) before 1-9 (1.5 + 1), though 1 is the top
    // seed.
    assert_eq!(order(&t, 3), [(3, 4), (7, 2), (1, 9), (8, 5)]);
    assert_eq!(order(&t, 1), [(1, 5), (6, 2), (3, 7), (8, 4)]);
    assert_eq!(t.byes(1), [(9, Some(Code::PairingBye))]);
    // Results as the file holds them.
    let r3 = t.boards(3);
    assert_eq!(r3[0].file_result().as_deref(), Some("0-1"));
    assert_eq!(r3[3].file_result().as_deref(), Some("1-0 by forfeit"));
    assert_eq!(t.boards(4)[0].file_result(), None);
}

#[test]
fn the_configured_round_is_read_when_the_file_pairs_it() {
    let path = data("fide-example.trf");
    let two = read_pairings_file(&path, Some(2)).unwrap();
    assert_eq!(two.pairings.round, Some(2));
    assert_eq!(two.pairings.board(1).unwrap().white.name, "Moreau, Claire");
    assert!(two.trf.is_some());
    // A round the file does not pair: its last paired round.
    let seven = read_pairings_file(&path, Some(7)).unwrap();
    assert_eq!(seven.pairings.round, Some(4));
}

#[test]
fn a_swiss_manager_export_reads_with_crlf_windows_1252_and_its_extra_lines() {
    let p = read_pairings(&data("swiss-manager.trf")).unwrap();
    assert_eq!(p.round, Some(3));
    assert_eq!(p.pairings.len(), 2);
    let b1 = p.board(1).unwrap();
    assert_eq!(b1.white.name, "Müller, Jürgen");
    assert_eq!(b1.black.name, "Rossi, Giulia");
    assert_eq!(b1.black.title.as_deref(), Some("WIM"));
    assert_eq!(b1.white.fide_id, Some(4_600_001));
    let b2 = p.board(2).unwrap();
    assert_eq!(b2.white.name, "Šoštar, Ana");
    assert_eq!(b2.white.federation.as_deref(), Some("CRO"));
    assert_eq!(b2.black.name, "Hansen, Ole");

    let t = trf::parse(&bytes("swiss-manager.trf")).unwrap();
    assert_eq!(t.tournament.rounds, Some(5));
    assert_eq!(t.tournament.name.as_deref(), Some("Bad Homburg Open 2025"));
    assert_eq!(
        t.byes(3),
        [(4, Some(Code::PairingBye)), (6, Some(Code::ZeroBye))]
    );
    let smith = &t.players[&6];
    assert_eq!(
        (smith.rating, smith.fide_id, smith.birth.as_deref()),
        (None, None, None)
    );
    assert_eq!(t.players[&4].birth.as_deref(), Some("1975"));
    // The file as read, byte for byte.
    assert_eq!(t.to_bytes(), bytes("swiss-manager.trf"));
}

#[test]
fn results_round_trip_and_every_other_line_stays_as_read() {
    let t = example();
    let filled = t.fill_results(
        4,
        &results(&[(1, "1-0"), (2, "1/2-1/2"), (3, "0-1"), (4, "*")]),
    );
    assert!(filled.conflicts.is_empty());
    assert_eq!(filled.written, [1, 2, 3]);
    let back = trf::parse(&filled.bytes).unwrap();
    // The same pairings, now with the results.
    assert_eq!(order(&back, 4), order(&t, 4));
    let got: Vec<Option<String>> = back.boards(4).iter().map(|b| b.file_result()).collect();
    assert_eq!(
        got,
        [
            Some("1-0".to_string()),
            Some("1/2-1/2".to_string()),
            Some("0-1".to_string()),
            None
        ]
    );
    // Points: the round's result added, nothing else.
    let points = |t: &Trf, r: u32| t.players[&r].points;
    for (rank, before, after) in [(4, 30, 40), (1, 25, 25), (2, 25, 30), (3, 15, 20)] {
        assert_eq!(
            (points(&t, rank), points(&back, rank)),
            (Some(before), Some(after))
        );
    }
    assert_eq!((points(&back, 8), points(&back, 7)), (Some(15), Some(25)));
    assert_eq!(points(&back, 9), points(&t, 9));
    // Every line but those of the six players whose result was written is
    // byte for byte as read; those differ in the result and points only.
    let touched: Vec<usize> = [4, 1, 2, 3, 8, 7]
        .iter()
        .map(|r| t.players[r].line)
        .collect();
    let (old, new) = (lines_of(&t), lines_of(&back));
    assert_eq!(old.len(), new.len());
    for (i, (a, b)) in old.iter().zip(&new).enumerate() {
        if !touched.contains(&(i + 1)) {
            assert_eq!(a, b, "line {} changed", i + 1);
            continue;
        }
        let changed: Vec<usize> = (0..a.len().max(b.len()))
            .filter(|&c| a.get(c).unwrap_or(&b' ') != b.get(c).unwrap_or(&b' '))
            .map(|c| c + 1)
            .collect();
        assert!(
            changed.iter().all(|c| (81..=84).contains(c) || *c == 129),
            "line {}: columns {changed:?} changed",
            i + 1
        );
    }
    // Filling the same results again changes nothing and conflicts with
    // nothing.
    let again = back.fill_results(4, &results(&[(1, "1-0"), (2, "1/2-1/2"), (3, "0-1")]));
    assert!(again.written.is_empty() && again.conflicts.is_empty());
    assert_eq!(again.bytes, filled.bytes);
}

#[test]
fn a_swiss_manager_round_trip_keeps_crlf_and_windows_1252() {
    let original = bytes("swiss-manager.trf");
    let t = trf::parse(&original).unwrap();
    let filled = t.fill_results(3, &results(&[(1, "0-1"), (2, "1-0")]));
    // Still Windows-1252 (not UTF-8), still CR LF only.
    assert!(std::str::from_utf8(&filled.bytes).is_err());
    let lf = filled.bytes.iter().filter(|&&b| b == b'\n').count();
    let crlf = filled.bytes.windows(2).filter(|w| w == b"\r\n").count();
    assert_eq!(lf, crlf);
    assert_eq!(filled.bytes.len(), original.len() + 4 * 2);
    let back = trf::parse(&filled.bytes).unwrap();
    assert_eq!(back.players[&5].points, Some(25));
    assert_eq!(back.players[&1].points, Some(20));
    assert_eq!(back.players[&2].points, Some(15));
    assert_eq!(back.players[&1].rounds[2].result, Some(Code::Loss));
    assert_eq!(back.players[&2].name, "Šoštar, Ana");
    let p = back.pairings(3);
    assert_eq!(p.board(1).unwrap().white.name, "Müller, Jürgen");
    let same = |n: usize| t.line(n) == back.line(n);
    let touched: Vec<usize> = [1, 5, 2, 3].iter().map(|r| t.players[r].line).collect();
    assert!((1..=t.line_count()).all(|n| touched.contains(&n) || same(n)));
}

#[test]
fn a_pairing_the_two_players_disagree_on_is_refused_naming_the_line() {
    let text = String::from_utf8(bytes("fide-example.trf")).unwrap();
    // Player 3 says he plays 2 with white in round 4; 2 says she plays 3
    // with white too.
    let line3 = text
        .lines()
        .position(|l| l.starts_with("001    3"))
        .unwrap()
        + 1;
    let line2 = text
        .lines()
        .position(|l| l.starts_with("001    2"))
        .unwrap()
        + 1;
    let both_white = text.replace("4 w 0     2 b", "4 w 0     2 w");
    let err = trf::parse(both_white.as_bytes()).unwrap_err();
    assert_eq!(err.line, line2, "{err}");
    assert!(
        err.reason.contains("round 4")
            && err.reason.contains("plays 3 with white")
            && err.reason.contains(&format!("line {line3}"))
            && err.reason.contains("2 with white"),
        "{err}"
    );
    // Player 7 says he plays 8 in round 4; 8 says she plays 9.
    let someone_else = text.replace("5 w +     7 w", "5 w +     9 w");
    let err = trf::parse(someone_else.as_bytes()).unwrap_err();
    assert!(err.reason.contains("round 4"), "{err}");
    // Through the pairings reader, the file is named too.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("round4.trf");
    std::fs::write(&path, both_white).unwrap();
    let err = read_pairings(&path).unwrap_err();
    assert!(matches!(err, PairingsError::Trf { .. }));
    assert!(
        err.to_string()
            .contains(&format!("round4.trf: line {line2}: round 4")),
        "{err}"
    );
    // A round block that does not read, and a doubled start rank.
    let bad = text.replace("4 w 0     2 b", "4 w 0     2 x");
    let err = trf::parse(bad.as_bytes()).unwrap_err();
    assert_eq!(err.line, line3);
    assert!(err.reason.contains("colour `x`"), "{err}");
    let doubled = text.replace("001    9 m", "001    8 m");
    let err = trf::parse(doubled.as_bytes()).unwrap_err();
    assert!(err.reason.contains("start rank 8 is on line"), "{err}");
}

#[test]
fn a_result_that_differs_between_board_and_file_is_reported() {
    let t = example();
    let played = t.fill_results(4, &results(&[(1, "1-0"), (2, "1/2-1/2")]));
    let file = trf::parse(&played.bytes).unwrap();
    // The boards say otherwise on board 1; board 2 agrees; board 3 is new.
    let boards = results(&[(1, "0-1"), (2, "1/2-1/2"), (3, "1-0")]);
    let conflicts = file.conflicts(4, &boards);
    assert_eq!(conflicts.len(), 1);
    let c = &conflicts[0];
    assert_eq!(
        c.to_string(),
        "board 1 (Okafor, Chidi - Lindqvist, Erik): the pairing file has 1-0, the board's game 0-1"
    );
    // Filled in, the board's result wins and the conflict is listed.
    let filled = file.fill_results(4, &boards);
    assert_eq!(filled.conflicts, conflicts);
    assert_eq!(filled.written, [1, 3]);
    let back = trf::parse(&filled.bytes).unwrap();
    assert_eq!(back.boards(4)[0].file_result().as_deref(), Some("0-1"));
    // A forfeit in the file and the same score on the board: no conflict,
    // the forfeit stays.
    let r3 = t.fill_results(3, &results(&[(4, "1-0")]));
    assert!(r3.conflicts.is_empty() && r3.written.is_empty());
    // An unfinished game is no conflict.
    assert!(file.conflicts(4, &results(&[(1, "*")])).is_empty());
}

#[test]
fn pgn_results_are_matched_by_round_tag_or_names() {
    let t = example();
    let p = t.pairings(4);
    let pgn = "[Event \"x\"]\n[Round \"4.2\"]\n[White \"Moreau, Claire\"]\n[Black \"Novak, Tomas\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 1/2-1/2\n\n\
               [Event \"x\"]\n[Round \"3.1\"]\n[Result \"1-0\"]\n\n1. d4 1-0\n\n\
               [Event \"x\"]\n[Round \"4\"]\n[White \"Kowalska, Anna\"]\n[Black \"Brown, Samuel\"]\n[Result \"0-1\"]\n\n0-1\n\n\
               [Event \"x\"]\n[Round \"4.4\"]\n[Result \"*\"]\n\n*\n";
    let got = trf::pgn_results(pgn, 4, &p).unwrap();
    assert_eq!(got, results(&[(2, "1/2-1/2"), (3, "0-1"), (4, "*")]));
}

/// A PGN game header.
fn game(round: &str, white: &str, black: &str, result: &str) -> String {
    format!(
        "[Event \"x\"]\n[Round \"{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n{result}\n\n"
    )
}

#[test]
fn a_pgn_board_number_that_disagrees_with_the_players_is_an_error_naming_both() {
    let t = example();
    let p = t.pairings(4);
    // Board 2's players, recorded as board 1.
    let pgn = game("4.1", "Moreau, Claire", "Novak, Tomas", "1-0");
    let err = trf::pgn_results(&pgn, 4, &p).unwrap_err().to_string();
    assert!(
        err.contains("board 1 (Okafor, Chidi - Lindqvist, Erik)")
            && err.contains("board 2 (Moreau, Claire - Novak, Tomas)"),
        "{err}"
    );
    // The players decide when the tag has no board; names match whatever
    // their case and spacing.
    let pgn = game("4", "moreau,  claire", "Novak, Tomas", "0-1");
    assert_eq!(
        trf::pgn_results(&pgn, 4, &p).unwrap(),
        results(&[(2, "0-1")])
    );
    // The pair with the colours the other way round: an error, not a
    // result written for the wrong player.
    let pgn = game("4.2", "Novak, Tomas", "Moreau, Claire", "1-0");
    let err = trf::pgn_results(&pgn, 4, &p).unwrap_err().to_string();
    assert!(
        err.contains("other colours") && err.contains("board 2"),
        "{err}"
    );
    // Players no pairing has, on a paired board: an error; on a board the
    // file does not pair (a spare board): skipped.
    let pgn = game("4.3", "Someone, Else", "Novak, Tomas", "1-0");
    assert!(trf::pgn_results(&pgn, 4, &p).is_err());
    let pgn = game("4.9", "?", "?", "1-0");
    assert!(trf::pgn_results(&pgn, 4, &p).unwrap().is_empty());
}

#[test]
fn a_forfeit_in_the_file_is_never_overwritten_by_a_game() {
    // Round 3, board 4: 8 - 5 is a forfeit (`+`/`-`) in the file.
    let t = example();
    assert_eq!(
        t.boards(3)[3].file_result().as_deref(),
        Some("1-0 by forfeit")
    );
    for game in ["1/2-1/2", "0-1", "1-0"] {
        let filled = t.fill_results(3, &results(&[(4, game)]));
        assert!(filled.written.is_empty(), "{game}");
        assert_eq!(filled.bytes, bytes("fide-example.trf"), "{game}");
        assert_eq!(filled.conflicts.len(), usize::from(game != "1-0"), "{game}");
    }
}

/// `text` with `round`'s block set to `block` on the lines of `ranks`.
fn with_block(text: &str, round: usize, ranks: &[u32], block: &str) -> String {
    let at = 91 + 10 * (round - 1);
    text.lines()
        .map(|l| {
            let rank = l
                .strip_prefix("001")
                .map(|r| r[1..5].trim().parse::<u32>().unwrap());
            match rank {
                Some(r) if ranks.contains(&r) => format!("{:<at$}{block}", &l[..l.len().min(at)]),
                _ => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_round_with_only_byes_entered_is_not_paired_yet() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("round5.trf");
    // Round 4 finished, then half-point byes entered for round 5.
    let finished = example().fill_results(
        4,
        &results(&[(1, "1-0"), (2, "1/2-1/2"), (3, "0-1"), (4, "1-0")]),
    );
    let text = String::from_utf8(finished.bytes).unwrap();
    let byes = with_block(&text, 5, &[3, 7], "0000 - H");
    std::fs::write(&path, &byes).unwrap();
    let file = read_pairings_file(&path, None).unwrap();
    assert_eq!(file.pairings.round, Some(5));
    assert!(file.pairings.pairings.is_empty());
    let why = file.not_paired.unwrap().to_string();
    assert_eq!(
        why,
        "round 5 has only byes entered (players 3, 7); it is not paired yet (round 4, the last paired, is finished)"
    );
    // Asked for round 4, the file gives it.
    let four = read_pairings_file(&path, Some(4)).unwrap();
    assert_eq!(
        (four.pairings.round, four.pairings.pairings.len()),
        (Some(4), 4)
    );
    // Byes entered for round 5 while round 4 is being played (its results
    // not in): advance requests, round 4 is read.
    let playing = with_block(
        &String::from_utf8(bytes("fide-example.trf")).unwrap(),
        5,
        &[3],
        "0000 - H",
    );
    let t = trf::parse(playing.as_bytes()).unwrap();
    assert_eq!(t.choose_round(None), Ok(4));
}

#[test]
fn files_that_hold_no_players_are_refused_saying_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let example = String::from_utf8(bytes("fide-example.trf")).unwrap();
    let utf16 = |big: bool| -> Vec<u8> {
        let mut v = if big {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for u in example.encode_utf16() {
            v.extend(if big {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        v
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.trf", Vec::new(), "empty file"),
        ("blank.txt", b"\r\n  \r\n".to_vec(), "empty file"),
        (
            "unicode.trf",
            utf16(false),
            "UTF-16 text (Notepad's \"Unicode\"): save it as UTF-8 or Windows-1252",
        ),
        ("unicode-be.txt", utf16(true), "UTF-16 text"),
        (
            "picture.trf",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0".to_vec(),
            "binary data, not a TRF",
        ),
        (
            "header.trf",
            b"012 Open 2025\r\n022 Torino\r\nXXR 9\r\n".to_vec(),
            "no player lines (001)",
        ),
        (
            "header.txt",
            b"012 Open 2025\n".to_vec(),
            "no player lines (001)",
        ),
    ];
    for (name, content, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        let err = read_pairings_file(&path, None).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, PairingsError::Unusable { .. }),
            "{name}: {text}"
        );
        assert!(
            text.starts_with(&format!("{}: {want}", path.display())),
            "{name}: {text}"
        );
        assert_eq!(text.lines().count(), 1);
    }
    // A UTF-8 byte-order mark is no problem.
    let path = dir.path().join("bom.trf");
    std::fs::write(&path, format!("\u{feff}{example}")).unwrap();
    assert_eq!(
        read_pairings_file(&path, None)
            .unwrap()
            .pairings
            .pairings
            .len(),
        4
    );
    let path = dir.path().join("bom.csv");
    std::fs::write(&path, "\u{feff}board,white,black\n1,A,B\n").unwrap();
    assert_eq!(read_pairings(&path).unwrap().pairings.len(), 1);
}

#[test]
fn a_pairings_file_over_the_size_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.trf");
    let line = "### a comment line a pairing program would never write this many of\n";
    let mut text = String::from("012 Open\n");
    while (text.len() as u64) <= MAX_PAIRINGS_BYTES {
        text.push_str(line);
    }
    std::fs::write(&path, &text).unwrap();
    let err = read_pairings_file(&path, None).unwrap_err().to_string();
    assert!(err.contains("larger than 4 MiB"), "{err}");
    // A real 500-player file is far below it.
    assert!(bytes("fide-example.trf").len() * 60 < MAX_PAIRINGS_BYTES as usize);
}

#[test]
fn real_export_quirks_are_tolerated() {
    let text = String::from_utf8(bytes("fide-example.trf")).unwrap();
    let want = order(&example(), 4);
    // CR alone as the line end, as the specification's Remark 1 says, and
    // a byte-order mark.
    let cr = format!("\u{feff}{}", text.replace('\n', "\r"));
    let t = trf::parse(cr.as_bytes()).unwrap();
    assert_eq!(order(&t, 4), want);
    assert_eq!(t.to_bytes(), cr.as_bytes());
    // Trailing spaces, lower-case codes upper-cased, one-letter titles.
    let quirky = text
        .replace("001    1 m GM", "001    1 m  g")
        .replace("001    2 w IM", "001    2 w wm")
        .replace("     4 b\n", "     4 b    \n")
        .replace("5 w +", "5 W +");
    let t = trf::parse(quirky.as_bytes()).unwrap();
    assert_eq!(order(&t, 4), want);
    assert_eq!(t.players[&1].title.as_deref(), Some("GM"));
    assert_eq!(t.players[&2].title.as_deref(), Some("WIM"));
    // A UTF-8 name padded by bytes rather than characters: the columns
    // after it read by bytes.
    let by_bytes = text.replace("Lindqvist, Erik  ", "Lindqvist, Eriké");
    let t = trf::parse(by_bytes.as_bytes()).unwrap();
    assert_eq!(t.players[&1].name, "Lindqvist, Eriké");
    assert_eq!(t.players[&1].rating, Some(2612));
    assert_eq!(order(&t, 4), want);
    // ... and its results are written at the right bytes.
    let filled = t.fill_results(4, &results(&[(1, "0-1")]));
    let back = trf::parse(&filled.bytes).unwrap();
    assert_eq!(back.players[&1].rounds[3].result, Some(Code::Win));
    assert_eq!(back.players[&1].points, Some(35));
    // A file with only the player list (before round 1) pairs nothing.
    let list: String = text
        .lines()
        .map(|l| if l.starts_with("001") { &l[..89] } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    let t = trf::parse(list.as_bytes()).unwrap();
    assert_eq!(t.round_to_read(Some(1)), None);
    assert!(t.pairings(1).pairings.is_empty());
}

#[test]
fn trf_is_read_by_extension_or_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let example = bytes("fide-example.trf");
    for name in ["round4.txt", "round4.TRFX", "round4.dat"] {
        let path = dir.path().join(name);
        std::fs::write(&path, &example).unwrap();
        let p = read_pairings(&path).unwrap();
        assert_eq!((name, p.round, p.pairings.len()), (name, Some(4), 4));
    }
    // CSV stays CSV, saved as `.txt` too.
    for name in ["round.csv", "round.txt"] {
        let path = dir.path().join(name);
        std::fs::write(&path, "board,white,black\n1,A,B\n").unwrap();
        let file = read_pairings_file(&path, None).unwrap();
        assert!(file.trf.is_none());
        assert_eq!(file.pairings.board(1).unwrap().black.name, "B");
    }
}

/// Issue 60, item 3: a file between rounds (round 2 finished, round 3
/// with only the byes asked for entered). The paperwork reads round 2,
/// the last round with a board, and names round 3 in one line; asked for
/// by number, round 3 is not paired; the daemon's configured file still
/// gives no boards for round 3.
#[test]
fn the_paperwork_reads_the_last_round_with_a_board_and_names_a_round_of_byes() {
    use boardcast::tournament::{NotPaired, RoundOfRecord};
    let t = trf::parse(&bytes("byes-ahead.trf")).unwrap();
    assert_eq!(t.paired_rounds(), [1, 2]);
    let byes = NotPaired::ByesOnly {
        round: 3,
        players: vec![2, 5],
        last: Some(2),
    };
    assert_eq!(
        t.round_of_record(None),
        Ok(RoundOfRecord {
            round: 2,
            later: Some(byes.clone()),
        })
    );
    assert_eq!(
        byes.note(2),
        "round 3 has only byes entered (players 2, 5), not paired yet: round 2 is read"
    );
    assert_eq!(
        t.round_of_record(Some(1)),
        Ok(RoundOfRecord {
            round: 1,
            later: None,
        })
    );
    assert_eq!(t.round_of_record(Some(3)), Err(byes.clone()));
    // The live daemon's reading is unchanged: round 3 is the one to be
    // played, not paired yet.
    assert_eq!(t.choose_round(None), Err(byes));
    // Round 2's boards in F.1 order, with their results.
    let boards: Vec<(u32, u32, Option<String>)> = t
        .boards(2)
        .iter()
        .map(|b| (b.white, b.black, b.file_result()))
        .collect();
    assert_eq!(
        boards,
        [
            (2, 1, Some("1/2-1/2".into())),
            (4, 3, Some("0-1".into())),
            (6, 5, Some("1-0".into())),
        ]
    );
}
