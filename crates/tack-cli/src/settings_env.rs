//! Settings' `env` is the session's environment, over the inherited one: what
//! tack reads (`place.env`), what every subprocess (Bash tool, hooks,
//! apiKeyHelper) inherits, and what reqwest reads HTTP(S)_PROXY / NO_PROXY
//! from. Every front end applies it here, right after the settings are read;
//! tests never get here (they run the binary, or pass an `Env`).

use tack_runtime::{LoadedSettings, Place};

/// Sets `loaded`'s `env` in the process and in `place.env`.
///
/// # Safety
///
/// The process must have one thread: no async runtime and no other thread
/// yet, since `std::env::set_var` races with any concurrent read of the
/// environment.
pub(crate) unsafe fn apply(place: &mut Place, loaded: &LoadedSettings) {
    for (key, value) in loaded.settings.env() {
        // SAFETY: the caller promises that the process has one thread.
        unsafe { std::env::set_var(key, value) };
    }
    place.env.apply(loaded.settings.env());
}
