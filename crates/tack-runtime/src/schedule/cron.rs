//! Five-field cron expressions (`M H DoM Mon DoW`) and the next time one
//! matches, in whatever zone the caller gives (the scheduler: local time).
//!
//! The grammar is Claude Code's: `*`, `N`, `N-M`, `*/S`, `N-M/S`, `N/S` and
//! comma lists of those; day of week 0-7 (0 and 7 are Sunday); no names, no
//! `L`, `W` or `?`. When both day of month and day of week are restricted a
//! day matching either matches (standard cron). No runtime types here: the
//! module is plain data and arithmetic, checked against a brute-force
//! reference by a property test.

use chrono::{DateTime, Datelike, Duration, LocalResult, NaiveDate, NaiveDateTime, TimeZone};
use chrono::{NaiveTime, Timelike};

/// A parsed expression: one bit per allowed value of each field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cron {
    minutes: u64,
    hours: u32,
    days: u32,
    months: u16,
    weekdays: u8,
    /// Day of month was `*` (then only day of week decides, and vice versa).
    any_day: bool,
    any_weekday: bool,
}

/// Why an expression is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CronError {
    #[error("Invalid cron expression '{0}'. Expected 5 fields: M H DoM Mon DoW.")]
    Shape(String),
    #[error("Invalid cron expression '{expr}': {field} field '{text}' is not valid ({min}-{max}).")]
    Field {
        expr: String,
        field: &'static str,
        text: String,
        min: u32,
        max: u32,
    },
}

/// How far ahead [`Cron::next_after`] looks (Claude Code: a year).
const HORIZON_DAYS: i64 = 366 * 5;

const FIELDS: [(&str, u32, u32); 5] = [
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day-of-month", 1, 31),
    ("month", 1, 12),
    ("day-of-week", 0, 7),
];

impl Cron {
    /// Parses `expr`; the error names the field that is wrong.
    pub fn parse(expr: &str) -> Result<Cron, CronError> {
        let parts: Vec<&str> = expr.split_whitespace().collect();
        let [m, h, dom, mon, dow] = parts[..] else {
            return Err(CronError::Shape(expr.to_owned()));
        };
        let mut bits = [0u64; 5];
        for (i, text) in [m, h, dom, mon, dow].into_iter().enumerate() {
            let (field, min, max) = FIELDS[i];
            bits[i] = field_bits(text, min, max).ok_or_else(|| CronError::Field {
                expr: expr.to_owned(),
                field,
                text: text.to_owned(),
                min,
                max,
            })?;
        }
        // Sunday is 0 and 7.
        let weekdays = (bits[4] | (bits[4] >> 7)) & 0x7f;
        Ok(Cron {
            minutes: bits[0],
            hours: bits[1] as u32,
            days: bits[2] as u32,
            months: bits[3] as u16,
            weekdays: weekdays as u8,
            any_day: dom == "*",
            any_weekday: dow == "*",
        })
    }

    /// True when the expression matches this calendar day.
    pub fn matches_day(&self, date: NaiveDate) -> bool {
        if self.months & (1 << date.month()) == 0 {
            return false;
        }
        let dom = self.days & (1 << date.day()) != 0;
        let dow = self.weekdays & (1 << date.weekday().num_days_from_sunday()) != 0;
        match (self.any_day, self.any_weekday) {
            (true, true) => true,
            (false, true) => dom,
            (true, false) => dow,
            (false, false) => dom || dow,
        }
    }

    /// True when the expression matches this wall-clock minute.
    pub fn matches(&self, at: NaiveDateTime) -> bool {
        self.matches_day(at.date())
            && self.hours & (1 << at.hour()) != 0
            && self.minutes & (1 << at.minute()) != 0
    }

    /// The first wall-clock minute strictly after `after` (seconds dropped)
    /// that matches, within five years.
    pub fn next_naive(&self, after: NaiveDateTime) -> Option<NaiveDateTime> {
        let start = after.with_second(0)?.with_nanosecond(0)? + Duration::minutes(1);
        let mut date = start.date();
        for day in 0..HORIZON_DAYS {
            if self.matches_day(date) {
                let from = if day == 0 {
                    start.time()
                } else {
                    NaiveTime::MIN
                };
                if let Some(time) = self.first_time_from(from) {
                    return Some(date.and_time(time));
                }
            }
            date = date.succ_opt()?;
        }
        None
    }

    /// The first matching hour:minute at or after `from` within a day.
    fn first_time_from(&self, from: NaiveTime) -> Option<NaiveTime> {
        for hour in from.hour()..24 {
            if self.hours & (1 << hour) == 0 {
                continue;
            }
            let first_minute = if hour == from.hour() {
                from.minute()
            } else {
                0
            };
            let wanted = self.minutes >> first_minute << first_minute;
            if wanted != 0 {
                return NaiveTime::from_hms_opt(hour, wanted.trailing_zeros(), 0);
            }
        }
        None
    }

    /// The first instant strictly after `after` whose wall-clock minute in
    /// `after`'s zone matches. A minute a daylight-saving jump skips is
    /// skipped; one that happens twice fires the first time.
    pub fn next_after<Tz: TimeZone>(&self, after: &DateTime<Tz>) -> Option<DateTime<Tz>> {
        let zone = after.timezone();
        let mut from = after.naive_local();
        loop {
            let next = self.next_naive(from)?;
            match zone.from_local_datetime(&next) {
                LocalResult::Single(t) if t > *after => return Some(t),
                LocalResult::Ambiguous(a, b) => {
                    if a > *after {
                        return Some(a);
                    }
                    if b > *after {
                        return Some(b);
                    }
                }
                LocalResult::Single(_) | LocalResult::None => {}
            }
            from = next;
        }
    }
}

/// The bits of one field's text, or `None` when it is not valid.
fn field_bits(text: &str, min: u32, max: u32) -> Option<u64> {
    let mut bits = 0u64;
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => (range, step.parse::<u32>().ok().filter(|s| *s > 0)?),
            None => (part, 1),
        };
        let (lo, hi) = if range == "*" {
            (min, max)
        } else if let Some((lo, hi)) = range.split_once('-') {
            (number(lo)?, number(hi)?)
        } else {
            let lo = number(range)?;
            // `N/S` runs from N to the end of the field.
            (lo, if part.contains('/') { max } else { lo })
        };
        if lo < min || hi > max || lo > hi {
            return None;
        }
        for v in (lo..=hi).step_by(step as usize) {
            bits |= 1 << v;
        }
    }
    Some(bits)
}

fn number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) || text.len() > 2 {
        return None;
    }
    text.parse().ok()
}

/// How a cron expression reads to a person ("every minute", "every 5
/// minutes", "at 09:30 every day"); anything else is shown as written.
pub fn human(expr: &str) -> String {
    let parts: Vec<&str> = expr.split_whitespace().collect();
    match parts[..] {
        ["*", "*", "*", "*", "*"] => "every minute".to_owned(),
        [m, "*", "*", "*", "*"] if m.starts_with("*/") => format!("every {} minutes", &m[2..]),
        [m, h, "*", "*", "*"] if h.starts_with("*/") && number(m).is_some() => {
            format!("every {} hours at :{:0>2}", &h[2..], m)
        }
        [m, "*", "*", "*", "*"] if number(m).is_some() => format!("every hour at :{m:0>2}"),
        [m, h, "*", "*", "*"] if number(m).is_some() && number(h).is_some() => {
            format!("at {h:0>2}:{m:0>2} every day")
        }
        _ => expr.to_owned(),
    }
}

#[cfg(test)]
#[path = "cron_tests.rs"]
mod tests;
