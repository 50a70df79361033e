//! A scheduled prompt and when it fires next: Claude Code's jitter (a
//! recurring job up to 10% of its period late, at most 15 minutes; a one-shot
//! landing on :00 or :30 up to 90 s early, never before it was made) and the
//! 7-day life of a recurring job.

use std::time::{Duration, SystemTime};

use chrono::{DateTime, Local, TimeZone, Timelike};

use super::cron::Cron;

/// Recurring jobs fire one last time this long after they were made, then go.
pub const RECURRING_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);
/// A recurring job fires up to this fraction of its period late...
const RECURRING_FRAC: f64 = 0.1;
/// ...and never more than this late.
const RECURRING_CAP: Duration = Duration::from_secs(15 * 60);
/// A one-shot on a round half hour fires up to this much early.
const ONE_SHOT_MAX_LEAD: Duration = Duration::from_secs(90);
const ONE_SHOT_MINUTE_MOD: u32 = 30;

/// A pending wake-up: the prompt runs when the session is idle after `at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wakeup {
    pub at: SystemTime,
    pub reason: String,
    pub prompt: String,
}

/// One job, as the tools and the file see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// 8 hex characters.
    pub id: String,
    pub cron: String,
    pub prompt: String,
    /// Epoch milliseconds.
    pub created_at: u64,
    /// Epoch milliseconds of the last firing (recurring durable jobs).
    pub last_fired_at: Option<u64>,
    pub recurring: bool,
    /// Kept in `.claude/scheduled_tasks.json`.
    pub durable: bool,
}

/// A fresh job id: 8 hex characters (their value is the job's jitter).
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_owned()
}

/// The job's id as a fraction in [0, 1); an id that is not hex gets none.
fn jitter_frac(id: &str) -> f64 {
    id.get(..8)
        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        .map_or(0.0, |v| f64::from(v) / 4_294_967_296.0)
}

pub fn epoch_ms(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

pub fn from_epoch_ms(ms: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(ms)
}

fn in_zone<Tz: TimeZone>(t: SystemTime, zone: &Tz) -> DateTime<Tz> {
    DateTime::<chrono::Utc>::from(t).with_timezone(zone)
}

impl Job {
    /// When the job fires next after `from`, jitter included, in local time.
    pub fn next_fire(&self, from: SystemTime) -> Option<SystemTime> {
        self.next_fire_in(from, &Local)
    }

    /// [`Job::next_fire`] with the zone given (tests).
    pub fn next_fire_in<Tz: TimeZone>(&self, from: SystemTime, zone: &Tz) -> Option<SystemTime> {
        let cron = Cron::parse(&self.cron).ok()?;
        let after = in_zone(from, zone);
        let t1 = cron.next_after(&after)?;
        let frac = jitter_frac(&self.id);
        if self.recurring {
            let Some(t2) = cron.next_after(&t1) else {
                return Some(t1.into());
            };
            let period = (t2.clone() - t1.clone()).to_std().unwrap_or_default();
            let late = period.mul_f64(frac * RECURRING_FRAC).min(RECURRING_CAP);
            Some(SystemTime::from(t1) + late)
        } else {
            let t1_time = SystemTime::from(t1.clone());
            if t1.minute() % ONE_SHOT_MINUTE_MOD != 0 {
                return Some(t1_time);
            }
            let early = ONE_SHOT_MAX_LEAD.mul_f64(frac);
            Some((t1_time - early).max(from))
        }
    }

    /// A recurring job past its 7 days fires once more and goes.
    pub fn expired(&self, now: SystemTime) -> bool {
        self.recurring
            && now
                .duration_since(from_epoch_ms(self.created_at))
                .is_ok_and(|age| age >= RECURRING_MAX_AGE)
    }

    /// Where the next firing is counted from: the last one, else the
    /// creation (so a job restored on resume keeps its rhythm).
    pub fn anchor(&self) -> SystemTime {
        from_epoch_ms(self.last_fired_at.unwrap_or(self.created_at))
    }
}

#[cfg(test)]
mod tests {
    use chrono::{FixedOffset, NaiveDate};
    use pretty_assertions::assert_eq;

    use super::*;

    fn utc(h: u32, m: u32, s: u32) -> SystemTime {
        let t = NaiveDate::from_ymd_opt(2026, 12, 6)
            .unwrap()
            .and_hms_opt(h, m, s)
            .unwrap()
            .and_utc();
        t.into()
    }

    fn job(id: &str, cron: &str, recurring: bool) -> Job {
        Job {
            id: id.into(),
            cron: cron.into(),
            prompt: "p".into(),
            created_at: epoch_ms(utc(10, 0, 0)),
            last_fired_at: None,
            recurring,
            durable: false,
        }
    }

    #[test]
    fn jitter_as_claude_code_spreads_it() {
        let zone = FixedOffset::east_opt(0).unwrap();
        let from = utc(10, 0, 10);
        let next = |j: Job| j.next_fire_in(from, &zone).unwrap();
        assert_eq!(
            [
                // No jitter for an id hashing to 0.
                next(job("00000000", "0 * * * *", true)),
                // Half of the range: 5% of an hour late.
                next(job("80000000", "0 * * * *", true)),
                // A daily job is capped at 15 minutes.
                next(job("ffffffff", "0 9 * * *", true)),
                // A one-shot on :30 fires early, by up to 90 s.
                next(job("80000000", "30 10 * * *", false)),
                // Not on a round half hour: on time.
                next(job("ffffffff", "31 10 * * *", false)),
                // Never before it was made.
                next(job("ffffffff", "1 10 * * *", false)),
                // A hand-written id that is not hex: no jitter.
                next(job("zz", "0 * * * *", true)),
            ],
            [
                utc(11, 0, 0),
                utc(11, 3, 0),
                utc(9, 15, 0) + Duration::from_secs(24 * 3600) - Duration::from_secs(0),
                utc(10, 29, 15),
                utc(10, 31, 0),
                utc(10, 1, 0),
                utc(11, 0, 0),
            ]
        );
    }

    #[test]
    fn recurring_jobs_expire_after_seven_days() {
        let j = job("00000000", "* * * * *", true);
        let made = from_epoch_ms(j.created_at);
        assert_eq!(
            [
                j.expired(made + RECURRING_MAX_AGE - Duration::from_secs(1)),
                j.expired(made + RECURRING_MAX_AGE),
                Job {
                    recurring: false,
                    ..j.clone()
                }
                .expired(made + RECURRING_MAX_AGE * 2),
            ],
            [false, true, false]
        );
    }
}
