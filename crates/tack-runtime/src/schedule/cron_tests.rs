use chrono::{FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Utc};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::*;

fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(y, mo, d)
        .unwrap()
        .and_hms_opt(h, mi, 0)
        .unwrap()
}

/// The reference: step one minute at a time until something matches.
fn brute_next(cron: &Cron, after: NaiveDateTime, limit_minutes: i64) -> Option<NaiveDateTime> {
    let mut t = after.with_second(0).unwrap() + Duration::minutes(1);
    for _ in 0..limit_minutes {
        if cron.matches(t) {
            return Some(t);
        }
        t += Duration::minutes(1);
    }
    None
}

#[test]
fn next_matches_of_common_expressions() {
    let from = at(2026, 12, 6, 19, 42); // a Sunday
    let next = |e: &str| Cron::parse(e).unwrap().next_naive(from).unwrap();
    assert_eq!(
        [
            next("* * * * *"),
            next("*/5 * * * *"),
            next("0 9 * * *"),
            next("0 9 * * 1-5"),
            next("30 14 29 2 *"),
            next("7 * * * 0"),
            next("7 * * * 7"),
            next("0 0 1 * 1"),
        ],
        [
            at(2026, 12, 6, 19, 43),
            at(2026, 12, 6, 19, 45),
            at(2026, 12, 7, 9, 0),
            at(2026, 12, 7, 9, 0),
            at(2028, 2, 29, 14, 30),
            at(2026, 12, 6, 20, 7),
            at(2026, 12, 6, 20, 7),
            // Day of month OR day of week: Monday the 7th comes first.
            at(2026, 12, 7, 0, 0),
        ]
    );
}

#[test]
fn bad_expressions_name_the_field() {
    let errors: Vec<String> = [
        "* * * *",
        "60 * * * *",
        "* 24 * * *",
        "*/0 * * * *",
        "a * * * *",
        "5-1 * * * *",
        "* * 0 * *",
        "* * * 13 *",
        "* * * * 8",
    ]
    .iter()
    .map(|e| Cron::parse(e).unwrap_err().to_string())
    .collect();
    assert_eq!(
        errors,
        [
            "Invalid cron expression '* * * *'. Expected 5 fields: M H DoM Mon DoW.",
            "Invalid cron expression '60 * * * *': minute field '60' is not valid (0-59).",
            "Invalid cron expression '* 24 * * *': hour field '24' is not valid (0-23).",
            "Invalid cron expression '*/0 * * * *': minute field '*/0' is not valid (0-59).",
            "Invalid cron expression 'a * * * *': minute field 'a' is not valid (0-59).",
            "Invalid cron expression '5-1 * * * *': minute field '5-1' is not valid (0-59).",
            "Invalid cron expression '* * 0 * *': day-of-month field '0' is not valid (1-31).",
            "Invalid cron expression '* * * 13 *': month field '13' is not valid (1-12).",
            "Invalid cron expression '* * * * 8': day-of-week field '8' is not valid (0-7).",
        ]
    );
}

#[test]
fn a_date_that_never_comes_has_no_next() {
    let cron = Cron::parse("0 0 31 2 *").unwrap();
    assert_eq!(cron.next_naive(at(2026, 1, 1, 0, 0)), None);
}

#[test]
fn the_zone_decides_the_wall_clock() {
    let cron = Cron::parse("0 9 * * *").unwrap();
    let plus2 = FixedOffset::east_opt(2 * 3600).unwrap();
    let after = plus2.from_local_datetime(&at(2026, 12, 6, 8, 0)).unwrap();
    let next = cron.next_after(&after).unwrap();
    assert_eq!(next.with_timezone(&Utc).naive_utc(), at(2026, 12, 6, 7, 0));
}

#[test]
fn human_schedules() {
    let got: Vec<String> = [
        "* * * * *",
        "*/5 * * * *",
        "7 * * * *",
        "30 9 * * *",
        "0 */2 * * *",
        "0 9 * * 1-5",
    ]
    .iter()
    .map(|e| human(e))
    .collect();
    assert_eq!(
        got,
        [
            "every minute",
            "every 5 minutes",
            "every hour at :07",
            "at 09:30 every day",
            "every 2 hours at :00",
            "0 9 * * 1-5",
        ]
    );
}

fn field(min: u32, max: u32) -> impl Strategy<Value = String> {
    prop_oneof![
        Just("*".to_owned()),
        (min..=max).prop_map(|v| v.to_string()),
        (min..=max, min..=max).prop_map(|(a, b)| format!("{}-{}", a.min(b), a.max(b))),
        (1..=(max - min + 1)).prop_map(|s| format!("*/{s}")),
        (min..=max, min..=max, 1u32..5).prop_map(|(a, b, s)| format!(
            "{}-{}/{s}",
            a.min(b),
            a.max(b)
        )),
        (min..=max, min..=max).prop_map(|(a, b)| format!("{a},{b}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The fast search agrees with stepping minute by minute (within the
    /// two months the reference looks ahead).
    #[test]
    fn next_agrees_with_brute_force(
        m in field(0, 59),
        h in field(0, 23),
        dom in field(1, 31),
        mon in field(1, 12),
        dow in field(0, 7),
        start in 0i64..(4 * 365 * 24 * 60),
    ) {
        let expr = format!("{m} {h} {dom} {mon} {dow}");
        let cron = Cron::parse(&expr).unwrap();
        let from = at(2025, 1, 1, 0, 0) + Duration::minutes(start);
        let limit = 62 * 24 * 60;
        let fast = cron.next_naive(from);
        let slow = brute_next(&cron, from, limit);
        match slow {
            Some(t) => prop_assert_eq!(fast, Some(t), "{}", expr),
            None => prop_assert!(fast.is_none_or(|t| t > from + Duration::minutes(limit)), "{}", expr),
        }
    }

    /// Nothing a model sends panics the parser.
    #[test]
    fn any_text_parses_or_errs(text in ".{0,40}") {
        let _ = Cron::parse(&text);
    }
}
