//! The classifier: one action, one or two model requests, one [`Verdict`].
//!
//! Stage 1 asks for the verdict alone (`max_tokens` 2112, stop at
//! `</block>`); an allow ends there, so an allowed action costs one request.
//! A block goes to stage 2, which may reason and gives the category and the
//! reason; a blocked action costs two. An answer without a verdict is asked
//! again once, per stage. A failed request (the client has its own retry
//! policy), a second answer without a verdict, or the cancel token firing
//! end the call with [`Verdict::Failed`] saying what went wrong: the caller
//! decides what a failure means (a person asks; headless runs refuse).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use tack_api::{ModelClient, final_message};
use tack_protocol::{MessageResponse, Usage};
use tokio_util::sync::CancellationToken;

use crate::prompt::{self, Ask, Stage};
use crate::rules::AutoModeConfig;
use crate::transcript::{Entry, Transcript};
use crate::verdict::{self, Answer, Verdict};

/// The reason a block gets when the model gave none.
pub const NO_REASON: &str = "Auto mode's classifier blocked this action without giving a reason.";

/// A classifier over one model, with the rules it was built with.
pub struct Classifier {
    client: Arc<dyn ModelClient>,
    model: String,
    config: AutoModeConfig,
    /// The system prompt, built once from `config` on the first
    /// classification: most sessions with auto mode
    /// available never classify, and start-up should not pay for it.
    system: OnceLock<String>,
    /// How many transcript entries the last request carried: where the
    /// prefix it wrote to the cache ends.
    sent_end: AtomicUsize,
}

impl std::fmt::Debug for Classifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Classifier")
            .field("model", &self.model)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A verdict and what it cost: every request's usage summed, for `/cost`
/// and `modelUsage` under the classifier's model.
#[derive(Debug, Clone, PartialEq)]
pub struct Classification {
    pub verdict: Verdict,
    pub usage: Usage,
    /// Requests sent (answered or not).
    pub requests: u32,
}

impl Classifier {
    pub fn new(client: Arc<dyn ModelClient>, model: String, config: AutoModeConfig) -> Self {
        Classifier {
            client,
            model,
            config,
            system: OnceLock::new(),
            sent_end: AtomicUsize::new(0),
        }
    }

    /// The model the classifier asks.
    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn config(&self) -> &AutoModeConfig {
        &self.config
    }

    /// The verdict on `action`, after `transcript`. `environment` is what tack
    /// knows about the session right now (working directory, git status), sent
    /// after the cached prefix.
    pub async fn classify(
        &self,
        transcript: &Transcript,
        action: &Entry,
        environment: &str,
        cancel: &CancellationToken,
    ) -> Verdict {
        self.classify_counted(transcript, action, environment, cancel)
            .await
            .verdict
    }

    /// [`Classifier::classify`], with the usage of its requests.
    pub async fn classify_counted(
        &self,
        transcript: &Transcript,
        action: &Entry,
        environment: &str,
        cancel: &CancellationToken,
    ) -> Classification {
        let mut call = Call {
            transcript,
            action: action.render().unwrap_or_default(),
            environment,
            cancel,
            usage: Usage::default(),
            requests: 0,
        };
        let verdict = match self.stage(&mut call, Stage::Quick).await {
            Err(why) => Verdict::Failed { why },
            Ok(Answer { block: false, .. }) => Verdict::Allow { stage: 1 },
            Ok(Answer { block: true, .. }) => match self.stage(&mut call, Stage::Reasoned).await {
                Err(why) => Verdict::Failed { why },
                Ok(Answer { block: false, .. }) => Verdict::Allow { stage: 2 },
                Ok(Answer {
                    block: true,
                    category,
                    reason,
                }) => Verdict::Block {
                    stage: 2,
                    category,
                    reason: reason.unwrap_or_else(|| NO_REASON.to_owned()),
                },
            },
        };
        Classification {
            verdict,
            usage: call.usage,
            requests: call.requests,
        }
    }

    /// One stage's answer, asked twice when the first has no verdict.
    async fn stage(&self, call: &mut Call<'_>, stage: Stage) -> Result<Answer, String> {
        let ask = Ask {
            transcript: call.transcript,
            action_line: &call.action,
            environment: call.environment,
            previous_end: self.sent_end.swap(call.transcript.len(), Ordering::Relaxed),
        };
        let system = (self.system).get_or_init(|| prompt::system_prompt(&self.config.rules));
        let request = prompt::request(&self.model, system, &ask, stage);
        let mut garbled = String::new();
        for _ in 0..2 {
            let message = self.ask(call, request.clone()).await?;
            if let Some(answer) = verdict::read(&message) {
                return Ok(answer);
            }
            garbled = verdict::answer_text(&message);
        }
        let shown: String = garbled.chars().take(200).collect();
        Err(format!(
            "auto mode's classifier ({}) answered twice without a verdict at stage {}; last answer: {shown:?}",
            self.model,
            stage.number()
        ))
    }

    /// One request, read to its final message.
    async fn ask(
        &self,
        call: &mut Call<'_>,
        request: tack_protocol::MessagesRequest,
    ) -> Result<MessageResponse, String> {
        let cancelled = || format!("auto mode's classifier ({}) was cancelled", self.model);
        if call.cancel.is_cancelled() {
            return Err(cancelled());
        }
        call.requests += 1;
        let stream = self.client.stream(request, call.cancel.clone());
        let answer = tokio::select! {
            biased;
            () = call.cancel.cancelled() => return Err(cancelled()),
            answer = final_message(stream) => answer,
        };
        match answer {
            Ok(Some(message)) => {
                call.usage += &message.usage;
                Ok(message)
            }
            Ok(None) => Err(format!(
                "auto mode's classifier ({}) sent no answer",
                self.model
            )),
            Err(e) => Err(format!(
                "auto mode's classifier ({}) could not be reached: {e}",
                self.model
            )),
        }
    }
}

/// One classification in progress.
struct Call<'a> {
    transcript: &'a Transcript,
    action: String,
    environment: &'a str,
    cancel: &'a CancellationToken,
    usage: Usage,
    requests: u32,
}
