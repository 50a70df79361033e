//! Reading a `subtype`-tagged request by hand: a known subtype's payload is
//! typed (and its errors name the subtype), an unknown one is kept whole.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A request whose subtype tack does not model, kept whole (with its `subtype`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OtherRequest(pub Map<String, Value>);

impl OtherRequest {
    pub fn subtype(&self) -> &str {
        self.0.get("subtype").and_then(Value::as_str).unwrap_or("")
    }
}

pub(super) fn subtype_of<E: serde::de::Error>(map: &Map<String, Value>) -> Result<String, E> {
    match map.get("subtype") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(E::custom("control request `subtype` is not a string")),
        None => Err(E::missing_field("subtype")),
    }
}

/// The map without `key` (the tag, which the payload types do not carry).
pub(super) fn without(map: &mut Map<String, Value>, key: &str) -> Map<String, Value> {
    let mut rest = std::mem::take(map);
    rest.remove(key);
    rest
}

pub(super) fn from_map<T: DeserializeOwned, E: serde::de::Error>(
    map: Map<String, Value>,
) -> Result<T, E> {
    T::deserialize(Value::Object(map)).map_err(E::custom)
}

/// A known subtype's payload; its errors name the subtype.
pub(super) fn typed<T: DeserializeOwned, E: serde::de::Error>(
    map: &mut Map<String, Value>,
    subtype: &str,
) -> Result<T, E> {
    T::deserialize(Value::Object(without(map, "subtype")))
        .map_err(|e| E::custom(format!("invalid `{subtype}` control request: {e}")))
}
