//! tack-automode against the scripted server over real HTTP: the Anthropic
//! client and an OpenAI-compatible one answering as the classifier.

mod classify;
mod common;
mod critique;
mod output;
mod providers;
