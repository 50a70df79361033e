//! When something happened, as a person says it: "3 minutes ago",
//! "yesterday 14:05", in the local time zone.

use std::time::SystemTime;

use chrono::{DateTime, Datelike, FixedOffset, Local, TimeZone, Utc};

/// The time now and the zone dates are shown in (given from outside: the UI
/// reads no clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallClock {
    pub now: SystemTime,
    /// Seconds east of UTC; `None`: the system's zone (`TZ`, `/etc/localtime`).
    pub utc_offset: Option<i32>,
}

impl WallClock {
    /// Now, in the system's zone.
    pub fn system() -> WallClock {
        WallClock {
            now: SystemTime::now(),
            utc_offset: None,
        }
    }

    /// When `then` was, said from now.
    pub fn when(&self, then: SystemTime) -> String {
        match self.utc_offset.and_then(FixedOffset::east_opt) {
            Some(zone) => when(then, self.now, &zone),
            None => when(then, self.now, &Local),
        }
    }
}

/// `then` said from `now` in `zone`: "just now", "N minutes ago", "today
/// 09:30", "yesterday 14:05", "Mon 14:05" within a week, "Nov 12 14:05"
/// within the year, "2024-11-12" before.
pub fn when<Tz: TimeZone>(then: SystemTime, now: SystemTime, zone: &Tz) -> String {
    let (then, now): (DateTime<Utc>, DateTime<Utc>) = (then.into(), now.into());
    let ago = now.signed_duration_since(then);
    let minutes = ago.num_minutes();
    if minutes < 1 {
        return "just now".to_owned();
    }
    if minutes < 60 {
        let s = if minutes == 1 { "" } else { "s" };
        return format!("{minutes} minute{s} ago");
    }
    let then = then.with_timezone(zone).naive_local();
    let now = now.with_timezone(zone).naive_local();
    let days = now.date().signed_duration_since(then.date()).num_days();
    let time = then.format("%H:%M");
    match days {
        0 => format!("today {time}"),
        1 => format!("yesterday {time}"),
        2..=6 => format!("{} {time}", then.format("%a")),
        _ if then.year() == now.year() => format!("{} {time}", then.format("%b %-d")),
        _ => then.format("%Y-%m-%d").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn said_from_now_in_the_zone() {
        // 2025-11-23 12:00 UTC, a Sunday; shown two hours east (14:00).
        let now = UNIX_EPOCH + Duration::from_secs(1_763_899_200);
        let clock = WallClock {
            now,
            utc_offset: Some(2 * 3600),
        };
        let ago = |secs: u64| clock.when(now - Duration::from_secs(secs));
        let shown: Vec<String> = [
            0,
            30,
            60,
            3 * 60,
            59 * 60,
            2 * 3600,
            14 * 3600 - 60,
            14 * 3600 + 60,
            24 * 3600 + 3 * 3600 + 55 * 60,
            3 * 86_400,
            40 * 86_400,
            400 * 86_400,
        ]
        .into_iter()
        .map(ago)
        .collect();
        assert_eq!(
            shown,
            [
                "just now",
                "just now",
                "1 minute ago",
                "3 minutes ago",
                "59 minutes ago",
                "today 12:00",
                "today 00:01",
                "yesterday 23:59",
                "yesterday 10:05",
                "Thu 14:00",
                "Oct 14 14:00",
                "2024-10-19",
            ]
        );
        // A time ahead of the clock (another machine's) is now.
        assert_eq!(clock.when(now + Duration::from_secs(90)), "just now");
    }
}
