//! Sentence embeddings: a sentence-transformers model of the BERT family,
//! run on the CPU with candle, for the meaning-level alignment of `best`
//! (`detect --model DIR`, issue 63).
//!
//! A model directory is laid out as sentence-transformers saves one (and as
//! `scripts/fetch-models.sh` unpacks all-MiniLM-L6-v2): `config.json` (the
//! BERT configuration), `model.safetensors` (its weights), `tokenizer.json`,
//! `modules.json` (the pipeline: transformer, pooling, optionally
//! normalisation), the pooling module's `config.json` (mean, CLS, max or
//! mean-sqrt-len pooling) and optionally `sentence_bert_config.json`
//! (`max_seq_length`). Sentences are cut to the model's length, encoded in
//! [batches](BATCH_SENTENCES) and pooled as the model says ([`Encoder`]);
//! [`Embedder`] adds a cache keyed by the text and the model
//! ([`cache`]), so that no sentence is encoded twice, in a run or, with a
//! cache directory, across runs. Nothing is ever fetched over the network.

pub mod cache;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

pub use cache::{EmbeddingCache, ModelId};

/// Sentences encoded in one forward pass.
pub const BATCH_SENTENCES: usize = 32;

/// Why a model cannot be loaded or run: one line naming the file and the reason.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A file of the model could not be read.
    #[error("{path}: cannot read: {reason}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A file of the model is not what the layout says it is.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The cache file could not be read or written.
    #[error("{path}: {reason}")]
    Cache {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl EmbedError {
    fn invalid(path: &Path, reason: impl std::fmt::Display) -> EmbedError {
        EmbedError::Invalid { path: path.to_path_buf(), reason: first_line(reason) }
    }
}

/// The first line of a message (candle's and serde's may run on).
fn first_line(reason: impl std::fmt::Display) -> String {
    reason.to_string().lines().next().unwrap_or_default().trim().to_string()
}

/// How the token vectors of a sentence become one vector
/// (sentence-transformers' `Pooling` module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The mean of the tokens' vectors.
    Mean,
    /// The first token's (`[CLS]`) vector.
    Cls,
    /// The largest value of each dimension over the tokens.
    Max,
    /// The sum of the tokens' vectors divided by the square root of their number.
    MeanSqrtLen,
}

/// The pooling module's `config.json`: the flags sentence-transformers writes.
#[derive(Debug, Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

impl PoolingConfig {
    /// The one pooling mode set; several or none is an error.
    fn pooling(&self) -> Result<Pooling, String> {
        let modes = [
            (self.pooling_mode_mean_tokens, Pooling::Mean),
            (self.pooling_mode_cls_token, Pooling::Cls),
            (self.pooling_mode_max_tokens, Pooling::Max),
            (self.pooling_mode_mean_sqrt_len_tokens, Pooling::MeanSqrtLen),
        ];
        let mut set = modes.iter().filter(|(on, _)| *on).map(|&(_, mode)| mode);
        match (set.next(), set.next()) {
            (Some(mode), None) => Ok(mode),
            (None, _) => Err("sets no pooling mode".to_string()),
            (Some(_), Some(_)) => {
                Err("sets more than one pooling mode (concatenated poolings are not supported)".into())
            }
        }
    }
}

/// One entry of `modules.json`.
#[derive(Debug, Deserialize)]
struct Module {
    path: String,
    #[serde(rename = "type")]
    kind: String,
}

/// `sentence_bert_config.json`.
#[derive(Debug, Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

/// A sentence encoder: a BERT model, its tokenizer and its pooling.
pub struct Encoder {
    model: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
    normalize: bool,
    dim: usize,
    id: ModelId,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder").field("pooling", &self.pooling).field("normalize", &self.normalize).finish()
    }
}

/// The bytes of `path`, or an error naming it.
fn read(path: &Path) -> Result<Vec<u8>, EmbedError> {
    fs::read(path).map_err(|e| EmbedError::Unreadable { path: path.to_path_buf(), reason: first_line(e) })
}

/// `path` parsed as JSON of type `T`, or an error naming it.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<(T, Vec<u8>), EmbedError> {
    let bytes = read(path)?;
    let value = serde_json::from_slice(&bytes).map_err(|e| EmbedError::invalid(path, format!("bad JSON: {e}")))?;
    Ok((value, bytes))
}

impl Encoder {
    /// Loads the model in `dir` (the layout of the [module](self)).
    pub fn load(dir: &Path) -> Result<Encoder, EmbedError> {
        let (modules, modules_bytes) = read_json::<Vec<Module>>(&dir.join("modules.json"))?;
        let pooling_module = modules.iter().find(|m| m.kind.ends_with(".Pooling")).ok_or_else(|| {
            EmbedError::invalid(&dir.join("modules.json"), "names no sentence_transformers.models.Pooling module")
        })?;
        let normalize = modules.iter().any(|m| m.kind.ends_with(".Normalize"));
        let pooling_path = dir.join(&pooling_module.path).join("config.json");
        let (pooling_config, pooling_bytes) = read_json::<PoolingConfig>(&pooling_path)?;
        let pooling = pooling_config.pooling().map_err(|e| EmbedError::invalid(&pooling_path, e))?;
        let config_path = dir.join("config.json");
        let (config, config_bytes) = read_json::<Config>(&config_path)?;
        let max_length = max_sequence_length(dir, &config)?;
        let tokenizer_path = dir.join("tokenizer.json");
        let tokenizer_bytes = read(&tokenizer_path)?;
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| EmbedError::invalid(&tokenizer_path, format!("not a tokenizer: {e}")))?;
        let truncation = TruncationParams { max_length, ..TruncationParams::default() };
        tokenizer.with_truncation(Some(truncation)).map_err(|e| EmbedError::invalid(&tokenizer_path, e))?;
        tokenizer.with_padding(None);
        let weights_path = dir.join("model.safetensors");
        let weights_bytes = read(&weights_path)?;
        let tensors = candle_core::safetensors::load_buffer(&weights_bytes, &Device::Cpu)
            .map_err(|e| EmbedError::invalid(&weights_path, format!("not safetensors: {e}")))?;
        let builder = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        let model = BertModel::load(builder, &config).map_err(|e| EmbedError::invalid(&weights_path, e))?;
        let id = ModelId::of(&[&modules_bytes, &pooling_bytes, &config_bytes, &tokenizer_bytes, &weights_bytes]);
        let encoder = Encoder { model, tokenizer, pooling, normalize, dim: config.hidden_size, id };
        // A model that cannot encode one sentence fails here, not in the middle of a run.
        encoder.encode(&["A probe sentence."]).map_err(|e| EmbedError::invalid(&weights_path, e))?;
        Ok(encoder)
    }

    /// The length of each embedding.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// What tells this model's embeddings from another's (its files' hash).
    pub fn id(&self) -> ModelId {
        self.id
    }

    /// The embeddings of `texts`, one after the other ([`dim`](Self::dim)
    /// values each), in one forward pass per [`BATCH_SENTENCES`] sentences
    /// of about one length (sorted by length, so that short sentences are
    /// not padded to a long one's tokens).
    pub fn encode(&self, texts: &[&str]) -> Result<Vec<f32>, String> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out = vec![0.0; texts.len() * self.dim];
        for batch in order.chunks(BATCH_SENTENCES) {
            let batch_texts: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            let encoded = self.encode_batch(&batch_texts).map_err(first_line)?;
            for (&i, vector) in batch.iter().zip(encoded.chunks_exact(self.dim)) {
                out[i * self.dim..(i + 1) * self.dim].copy_from_slice(vector);
            }
        }
        Ok(out)
    }

    fn encode_batch(&self, texts: &[&str]) -> Result<Vec<f32>, Box<dyn std::error::Error + Send + Sync>> {
        let encodings = self.tokenizer.encode_batch(texts.to_vec(), true)?;
        let longest = encodings.iter().map(|e| e.get_ids().len()).max().unwrap_or(0).max(1);
        let (mut ids, mut mask) = (vec![0u32; texts.len() * longest], vec![0u32; texts.len() * longest]);
        for (row, encoding) in encodings.iter().enumerate() {
            let tokens = encoding.get_ids();
            ids[row * longest..row * longest + tokens.len()].copy_from_slice(tokens);
            mask[row * longest..row * longest + tokens.len()].fill(1);
        }
        let shape = (texts.len(), longest);
        let ids = Tensor::from_vec(ids, shape, &Device::Cpu)?;
        let mask = Tensor::from_vec(mask, shape, &Device::Cpu)?;
        let types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
        let pooled = pool(&hidden, &mask.to_dtype(DType::F32)?, self.pooling)?;
        let pooled = if self.normalize { normalized(&pooled)? } else { pooled };
        Ok(pooled.flatten_all()?.to_vec1::<f32>()?)
    }
}

/// The longest token sequence the model takes: `sentence_bert_config.json`'s
/// `max_seq_length` when given, within the model's position embeddings.
fn max_sequence_length(dir: &Path, config: &Config) -> Result<usize, EmbedError> {
    let path = dir.join("sentence_bert_config.json");
    let given = if path.exists() { read_json::<SentenceBertConfig>(&path)?.0.max_seq_length } else { None };
    Ok(given.unwrap_or(config.max_position_embeddings).min(config.max_position_embeddings))
}

/// The token vectors `hidden` (batch, tokens, dim) pooled over the tokens
/// that `mask` (batch, tokens; 1 or 0) keeps.
fn pool(hidden: &Tensor, mask: &Tensor, pooling: Pooling) -> candle_core::Result<Tensor> {
    let expanded = mask.unsqueeze(2)?.broadcast_as(hidden.shape())?;
    let counts = mask.sum_keepdim(1)?.clamp(1e-9, f32::MAX)?;
    match pooling {
        Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1),
        Pooling::Mean => (hidden * &expanded)?.sum(1)?.broadcast_div(&counts),
        Pooling::MeanSqrtLen => (hidden * &expanded)?.sum(1)?.broadcast_div(&counts.sqrt()?),
        Pooling::Max => {
            // Padding tokens are pushed far below any value before the maximum.
            let lowered = ((&expanded - 1.0)? * 1e9)?;
            (hidden + lowered)?.max(1)
        }
    }
}

/// Each row of `x` divided by its Euclidean norm (at least 1e-12, as torch's
/// `normalize`).
fn normalized(x: &Tensor) -> candle_core::Result<Tensor> {
    let norms = x.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f32::MAX)?;
    x.broadcast_div(&norms)
}

/// An [`Encoder`] with its [`EmbeddingCache`]: what the alignment embeds
/// sentences with.
#[derive(Debug)]
pub struct Embedder {
    encoder: Encoder,
    cache: EmbeddingCache,
    /// The first failure of [`embed`](Self::embed), for the run to report.
    failure: std::sync::OnceLock<String>,
}

impl Embedder {
    /// The model in `model_dir`, with its cache persisted in `cache_dir`
    /// when one is given ([`EmbeddingCache::open`]), else kept for the run.
    pub fn load(model_dir: &Path, cache_dir: Option<&Path>) -> Result<Embedder, EmbedError> {
        let encoder = Encoder::load(model_dir)?;
        let cache = match cache_dir {
            Some(dir) => EmbeddingCache::open(dir, encoder.id(), encoder.dim())?,
            None => EmbeddingCache::in_memory(encoder.id(), encoder.dim()),
        };
        Ok(Embedder { encoder, cache, failure: std::sync::OnceLock::new() })
    }

    /// The length of each embedding.
    pub fn dim(&self) -> usize {
        self.encoder.dim()
    }

    /// Appends to `out` the embeddings of `texts`, one after the other:
    /// cached ones from the cache, the others encoded (in batches) and
    /// cached. Fails when the model fails, which its load has ruled out for
    /// a sentence of any length (the tokenizer cuts it to the model's); the
    /// first failure is kept ([`failure`](Self::failure)).
    pub fn embed(&self, texts: &[&str], out: &mut Vec<f32>) -> Result<(), String> {
        self.embed_or_fail(texts, out).inspect_err(|e| {
            let _ = self.failure.set(e.clone());
        })
    }

    /// What the first failed [`embed`](Self::embed) failed with.
    pub fn failure(&self) -> Option<&str> {
        self.failure.get().map(String::as_str)
    }

    fn embed_or_fail(&self, texts: &[&str], out: &mut Vec<f32>) -> Result<(), String> {
        let start = out.len();
        let keys: Vec<u128> = texts.iter().map(|text| self.cache.key(text)).collect();
        let missing = self.cache.fill(&keys, out);
        if missing.is_empty() {
            return Ok(());
        }
        // A sentence twice among `texts` is encoded once.
        let (mut at, mut new) = (HashMap::new(), Vec::new());
        for &i in &missing {
            at.entry(keys[i]).or_insert_with(|| {
                new.push(texts[i]);
                new.len() - 1
            });
        }
        let encoded = self.encoder.encode(&new)?;
        let dim = self.dim();
        let vector = |key: &u128| &encoded[at[key] * dim..(at[key] + 1) * dim];
        for &i in &missing {
            out[start + i * dim..start + (i + 1) * dim].copy_from_slice(vector(&keys[i]));
        }
        self.cache.insert(at.keys().map(|key| (*key, vector(key))));
        Ok(())
    }

    /// Sentences encoded so far (not taken from the cache).
    pub fn encoded(&self) -> u64 {
        self.cache.inserted()
    }

    /// Writes the cache to its directory, when it has one and something
    /// new ([`EmbeddingCache::save`]).
    pub fn save(&self) -> Result<(), EmbedError> {
        self.cache.save()
    }
}

/// Cosine similarity of two embeddings.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norms = a.iter().map(|x| x * x).sum::<f32>().sqrt() * b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norms > 0.0 { dot / norms } else { 0.0 }
}

#[cfg(test)]
pub(crate) mod tests;
