use serde::{Deserialize, Deserializer};

/// The API sends `null` for cache counters on some responses; for arithmetic we
/// want 0, and `Usage` always serialises the number back.
pub(crate) fn null_as_zero<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    Ok(Option::<u64>::deserialize(d)?.unwrap_or(0))
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
