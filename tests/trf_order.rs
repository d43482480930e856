//! Issue 42, finding 1: board numbers in the order the pairing programs
//! print their pairings (FIDE Handbook C.04.1 F.1), checked round by round
//! against the pairings printed by three programs: bbpPairings, JaVaFo and
//! py4swiss (tests/data/trf/README.md says where each file comes from and
//! its licence).

use boardcast::tournament::trf::{self, Code, Trf};

use super::data;

/// Pairs as a pairing program prints them: `white black` lines, `n 0` for
/// the pairing-allocated bye.
fn pairs(text: &str) -> Vec<(u32, u32)> {
    text.lines()
        .filter_map(|l| {
            let mut n = l.split_whitespace().map(|w| w.parse::<u32>().unwrap());
            Some((n.next()?, n.next()?))
        })
        .collect()
}

/// `(white, black)` start ranks of each board, in board order.
fn order(t: &Trf, round: u32) -> Vec<(u32, u32)> {
    t.boards(round).iter().map(|b| (b.white, b.black)).collect()
}

/// Each `round N` section of a printed-pairings file: the round and its
/// pairs in printed order.
fn sections(text: &str) -> Vec<(u32, Vec<(u32, u32)>)> {
    text.split("round ")
        .filter(|b| !b.is_empty())
        .map(|block| {
            let (round, rest) = block.split_once('\n').unwrap();
            (round.trim().parse().unwrap(), pairs(rest))
        })
        .collect()
}

/// The file as the pairing program saved it after pairing `round` as
/// `printed` (results blank): each player line cut after the round
/// before, then the opponent and colour (`0000 - U` for the bye).
fn with_round(bytes: &[u8], round: u32, printed: &[(u32, u32)]) -> Vec<u8> {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let at = 91 + 10 * (round as usize - 1);
    let mut out = String::new();
    for line in text.split_inclusive(['\r', '\n']) {
        let full = line.trim_end_matches(['\r', '\n']);
        let end = &line[full.len()..];
        let body = match full.starts_with("001") {
            true => full[..full.len().min(at)].trim_end(),
            false => full,
        };
        let rank = body
            .strip_prefix("001")
            .map(|b| b[1..5].trim().parse::<u32>().unwrap());
        let block = rank.and_then(|r| {
            printed.iter().find_map(|&(w, b)| match (w == r, b == r) {
                (true, _) if b == 0 => Some("0000 - U".to_string()),
                (true, _) => Some(format!("{b:>4} w  ")),
                (_, true) => Some(format!("{w:>4} b  ")),
                _ => None,
            })
        });
        match block {
            Some(block) => out.push_str(&format!("{body:<at$}{block}{end}")),
            None => out.push_str(&format!("{body}{end}")),
        }
    }
    out.into_bytes()
}

/// bbpPairings' test: the round it paired, in the order it printed.
fn bbp_case(name: &str) -> (Trf, u32, Vec<(u32, u32)>) {
    let input = std::fs::read(data(&format!("bbppairings/{name}.input"))).unwrap();
    let printed =
        std::fs::read_to_string(data(&format!("bbppairings/{name}.output.expected"))).unwrap();
    let printed: Vec<(u32, u32)> = pairs(
        printed
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
            .as_str(),
    );
    let played = trf::parse(&input).unwrap();
    let round = played.paired_rounds().last().unwrap() + 1;
    let t = trf::parse(&with_round(&input, round, &printed)).unwrap();
    (t, round, printed)
}

#[test]
fn boards_are_in_the_order_bbppairings_printed() {
    for name in ["issue_7", "dutch_2025_C5", "dutch_2025_C9"] {
        let (t, round, printed) = bbp_case(name);
        let games: Vec<(u32, u32)> = printed.iter().copied().filter(|p| p.1 != 0).collect();
        assert_eq!(order(&t, round), games, "{name}, round {round}");
        // The pairing-allocated bye has no board: FIDE prints it last.
        let bye: Vec<u32> = printed.iter().filter(|p| p.1 == 0).map(|p| p.0).collect();
        let byes: Vec<u32> = t
            .byes(round)
            .iter()
            .filter(|(_, c)| *c == Some(Code::PairingBye))
            .map(|(r, _)| *r)
            .collect();
        assert_eq!(byes, bye, "{name}");
    }
}

/// bbpPairings' random tournaments, each round paired again by the
/// program whose printed pairs are in `folder`: every round's boards in
/// the printed order. Returns the rounds checked.
fn random_rounds_as_printed_in(folder: &str) -> usize {
    let mut checked = 0;
    for (name, rounds) in [
        ("random-1", 7),
        ("random-2", 8),
        ("random-3", 9),
        ("random-4", 9),
    ] {
        let input = std::fs::read(data(&format!("bbppairings/{name}.trf"))).unwrap();
        let printed = std::fs::read_to_string(data(&format!("{folder}/{name}.pairings"))).unwrap();
        let sections = sections(&printed);
        assert_eq!(sections.len(), rounds, "{folder}/{name}");
        for (round, printed) in sections {
            let t = trf::parse(&with_round(&input, round, &printed)).unwrap();
            let games: Vec<(u32, u32)> = printed.iter().copied().filter(|p| p.1 != 0).collect();
            assert_eq!(order(&t, round), games, "{folder}/{name}, round {round}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn boards_are_in_the_order_bbppairings_printed_round_by_round() {
    // Random tournaments of bbpPairings' generator, each round paired by
    // bbpPairings from the rounds before it (forfeits, half-point byes,
    // withdrawals, pairing-allocated byes).
    assert_eq!(random_rounds_as_printed_in("bbppairings"), 7 + 8 + 9 + 9);
}

#[test]
fn boards_are_in_the_order_py4swiss_printed() {
    // Tournaments played with py4swiss' own pairings (its Dutch, Dubov and
    // Burstein systems): the games of each round are the pairs it
    // printed, in the order it printed them.
    let mut checked = 0;
    for (name, rounds) in [
        ("dutch-1", 9),
        ("dutch-2", 7),
        ("dubov-1", 9),
        ("dubov-2", 7),
        ("burstein-1", 8),
        ("burstein-2", 6),
    ] {
        let t = trf::parse(&std::fs::read(data(&format!("py4swiss/{name}.trf"))).unwrap()).unwrap();
        let printed = std::fs::read_to_string(data(&format!("py4swiss/{name}.pairings"))).unwrap();
        let sections = sections(&printed);
        assert_eq!(sections.len(), rounds, "{name}");
        for (round, printed) in sections {
            let games: Vec<(u32, u32)> = printed.iter().copied().filter(|p| p.1 != 0).collect();
            assert_eq!(order(&t, round), games, "py4swiss/{name}, round {round}");
            checked += 1;
        }
    }
    assert_eq!(checked, 9 + 7 + 9 + 7 + 8 + 6);
    // And bbpPairings' random tournaments paired again by py4swiss.
    assert_eq!(random_rounds_as_printed_in("py4swiss"), 7 + 8 + 9 + 9);
}

#[test]
fn the_higher_player_is_not_the_smaller_rank_of_the_pair() {
    // py4swiss' dutch-1, round 9: 11 (5) - 3 (5.5) is printed before
    // 4 (5.5) - 1 (5): same top score and sum, and the higher players are
    // 3 and 4, though 1 has the smallest start rank of the four.
    let t = trf::parse(&std::fs::read(data("py4swiss/dutch-1.trf")).unwrap()).unwrap();
    let boards = order(&t, 9);
    let at = |pair: (u32, u32)| boards.iter().position(|&b| b == pair).unwrap();
    assert!(at((11, 3)) < at((4, 1)), "{boards:?}");
}

#[test]
fn the_higher_player_of_a_pair_is_the_one_with_more_points() {
    // bbpPairings' random-3, round 8: 3 (5.5) - 4 (6) and 6 (6) - 2 (5.5)
    // have the same top score and sum; their higher players are 4 and 6,
    // so 3 - 4 is board 1, though 2 has the smallest start rank of all
    // four.
    let input = std::fs::read(data("bbppairings/random-3.trf")).unwrap();
    let printed = std::fs::read_to_string(data("bbppairings/random-3.pairings")).unwrap();
    let (round, printed) = sections(&printed).remove(7);
    let t = trf::parse(&with_round(&input, round, &printed)).unwrap();
    assert_eq!(round, 8);
    assert_eq!(order(&t, round)[..2], [(3, 4), (6, 2)]);
}

#[test]
fn boards_are_in_the_order_javafo_printed() {
    let mut checked = 0;
    for name in [
        "8-players-5-rounds",
        "9-players-5-rounds",
        "10-players-7-rounds",
        "12-players-7-rounds",
        "20-players-9-rounds",
        "withdrawal",
    ] {
        let t = trf::parse(&std::fs::read(data(&format!("javafo/{name}.trf"))).unwrap()).unwrap();
        let printed = std::fs::read_to_string(data(&format!("javafo/{name}.pairings"))).unwrap();
        for (round, printed) in sections(&printed) {
            assert_eq!(order(&t, round), printed, "{name}, round {round}");
            checked += 1;
        }
    }
    assert_eq!(checked, 5 + 5 + 7 + 7 + 9 + 5);
}
