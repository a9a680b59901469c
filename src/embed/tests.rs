//! The encoder checked on a tiny BERT that the test writes itself (random
//! weights, a vocabulary of a few words), against a plain computation of
//! BERT over the same weights: loops in f64, no candle.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

const VOCAB: [&str; 14] =
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", ".", "##s"];
const HIDDEN: usize = 8;
const HEADS: usize = 2;
const LAYERS: usize = 2;
const INTERMEDIATE: usize = 12;
const POSITIONS: usize = 16;
const EPS: f64 = 1e-12;

/// A weight matrix of `rows` x `cols`, row-major.
#[derive(Clone)]
struct Matrix {
    rows: usize,
    cols: usize,
    values: Vec<f32>,
}

impl Matrix {
    fn random(rng: &mut ChaCha8Rng, rows: usize, cols: usize, scale: f32) -> Matrix {
        Matrix { rows, cols, values: (0..rows * cols).map(|_| rng.random_range(-scale..scale)).collect() }
    }

    fn at(&self, row: usize, col: usize) -> f64 {
        f64::from(self.values[row * self.cols + col])
    }

    fn row(&self, row: usize) -> Vec<f64> {
        (0..self.cols).map(|col| self.at(row, col)).collect()
    }
}

/// The tiny model's weights by their names in a BERT checkpoint.
struct Weights(HashMap<String, Matrix>);

impl Weights {
    fn random(seed: u64) -> Weights {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut weights = HashMap::new();
        let mut add = |name: String, rows: usize, cols: usize, rng: &mut ChaCha8Rng, scale: f32| {
            weights.insert(name, Matrix::random(rng, rows, cols, scale));
        };
        add("embeddings.word_embeddings.weight".into(), VOCAB.len(), HIDDEN, &mut rng, 1.0);
        add("embeddings.position_embeddings.weight".into(), POSITIONS, HIDDEN, &mut rng, 0.5);
        add("embeddings.token_type_embeddings.weight".into(), 2, HIDDEN, &mut rng, 0.5);
        let norm = |name: String, rng: &mut ChaCha8Rng, weights: &mut HashMap<String, Matrix>| {
            let gamma =
                Matrix { rows: 1, cols: HIDDEN, values: (0..HIDDEN).map(|_| rng.random_range(0.5..1.5)).collect() };
            weights.insert(format!("{name}.weight"), gamma);
            weights.insert(format!("{name}.bias"), Matrix::random(rng, 1, HIDDEN, 0.2));
        };
        norm("embeddings.LayerNorm".into(), &mut rng, &mut weights);
        for layer in 0..LAYERS {
            let p = format!("encoder.layer.{layer}");
            let dense = [
                (format!("{p}.attention.self.query"), HIDDEN, HIDDEN),
                (format!("{p}.attention.self.key"), HIDDEN, HIDDEN),
                (format!("{p}.attention.self.value"), HIDDEN, HIDDEN),
                (format!("{p}.attention.output.dense"), HIDDEN, HIDDEN),
                (format!("{p}.intermediate.dense"), INTERMEDIATE, HIDDEN),
                (format!("{p}.output.dense"), HIDDEN, INTERMEDIATE),
            ];
            for (name, rows, cols) in dense {
                weights.insert(format!("{name}.weight"), Matrix::random(&mut rng, rows, cols, 0.6));
                weights.insert(format!("{name}.bias"), Matrix::random(&mut rng, 1, rows, 0.2));
            }
            norm(format!("{p}.attention.output.LayerNorm"), &mut rng, &mut weights);
            norm(format!("{p}.output.LayerNorm"), &mut rng, &mut weights);
        }
        Weights(weights)
    }

    fn get(&self, name: &str) -> &Matrix {
        &self.0[name]
    }

    fn save(&self, path: &Path) {
        let tensors: HashMap<String, Tensor> = self
            .0
            .iter()
            .map(|(name, m)| {
                // Biases and layer norms are vectors, the rest matrices.
                let tensor = if name.ends_with(".bias") || name.ends_with("LayerNorm.weight") {
                    Tensor::from_vec(m.values.clone(), m.cols, &Device::Cpu)
                } else {
                    Tensor::from_vec(m.values.clone(), (m.rows, m.cols), &Device::Cpu)
                };
                (name.clone(), tensor.unwrap())
            })
            .collect();
        candle_core::safetensors::save(&tensors, path).unwrap();
    }
}

/// Writes the tiny model's directory: weights, configuration, tokenizer,
/// modules and pooling (`pooling` is the pooling config's mode flag).
fn write_model(dir: &Path, weights: &Weights, pooling: &str, normalize: bool) {
    weights.save(&dir.join("model.safetensors"));
    let config = serde_json::json!({
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "hidden_size": HIDDEN, "num_attention_heads": HEADS, "num_hidden_layers": LAYERS,
        "intermediate_size": INTERMEDIATE, "max_position_embeddings": POSITIONS, "type_vocab_size": 2,
        "vocab_size": VOCAB.len(), "layer_norm_eps": EPS, "pad_token_id": 0,
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02
    });
    fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let vocab: serde_json::Map<String, serde_json::Value> =
        VOCAB.iter().enumerate().map(|(i, word)| (word.to_string(), i.into())).collect();
    let special = |id: usize| {
        serde_json::json!({"id": id, "content": VOCAB[id], "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": true})
    };
    let tokenizer = serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [special(0), special(1), special(2), special(3)],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
            "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
        "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100, "vocab": vocab}
    });
    fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
    let mut modules = vec![
        serde_json::json!({"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}),
        serde_json::json!({"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}),
    ];
    if normalize {
        modules.push(
            serde_json::json!({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}),
        );
    }
    fs::write(dir.join("modules.json"), serde_json::Value::from(modules).to_string()).unwrap();
    fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    let pooling_config = serde_json::json!({"word_embedding_dimension": HIDDEN, pooling: true});
    fs::write(dir.join("1_Pooling/config.json"), pooling_config.to_string()).unwrap();
    fs::write(dir.join("sentence_bert_config.json"), r#"{"max_seq_length": 6, "do_lower_case": false}"#).unwrap();
}

/// An embedder of a tiny model (random weights, mean pooling, normalised)
/// written into `dir`, for the tests of the modules that use one.
pub(crate) fn tiny_embedder(dir: &Path) -> Embedder {
    write_model(dir, &Weights::random(2), "pooling_mode_mean_tokens", true);
    Embedder::load(dir, None).unwrap()
}

/// The tokens of `text` as the tiny vocabulary has them (whole lower-case
/// words and full stops; "cats" is "cat ##s"), with [CLS] and [SEP], cut
/// to `max` tokens as the tokenizer cuts them ([SEP] kept last).
fn reference_tokens(text: &str, max: usize) -> Vec<usize> {
    let id = |word: &str| VOCAB.iter().position(|v| *v == word).unwrap();
    let mut ids = Vec::new();
    for word in text.replace('.', " . ").split_whitespace() {
        let word = word.to_lowercase();
        match VOCAB.iter().position(|v| *v == word) {
            Some(i) => ids.push(i),
            None => ids.extend([id(word.strip_suffix('s').unwrap()), id("##s")]),
        }
    }
    ids.truncate(max - 2);
    [vec![2], ids, vec![3]].concat()
}

/// `x` (a row) times the transpose of `weight` plus `bias`.
fn linear(x: &[f64], weights: &Weights, name: &str) -> Vec<f64> {
    let (w, b) = (weights.get(&format!("{name}.weight")), weights.get(&format!("{name}.bias")));
    (0..w.rows).map(|r| b.at(0, r) + (0..w.cols).map(|c| w.at(r, c) * x[c]).sum::<f64>()).collect()
}

fn layer_norm(x: &[f64], weights: &Weights, name: &str) -> Vec<f64> {
    let (g, b) = (weights.get(&format!("{name}.weight")), weights.get(&format!("{name}.bias")));
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let variance = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / x.len() as f64;
    x.iter().enumerate().map(|(i, v)| (v - mean) / (variance + EPS).sqrt() * g.at(0, i) + b.at(0, i)).collect()
}

/// erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.3275911 * x.abs());
    let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    (1.0 - poly * (-x * x).exp()).copysign(x)
}

fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

fn add(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

/// BERT's last hidden states for `tokens`, computed plainly.
fn reference_hidden(weights: &Weights, tokens: &[usize]) -> Vec<Vec<f64>> {
    let embed = |name: &str, row: usize| weights.get(&format!("embeddings.{name}.weight")).row(row);
    let mut x: Vec<Vec<f64>> = tokens
        .iter()
        .enumerate()
        .map(|(p, &t)| {
            let sum = add(
                &add(&embed("word_embeddings", t), &embed("position_embeddings", p)),
                &embed("token_type_embeddings", 0),
            );
            layer_norm(&sum, weights, "embeddings.LayerNorm")
        })
        .collect();
    let head = HIDDEN / HEADS;
    for layer in 0..LAYERS {
        let p = format!("encoder.layer.{layer}");
        let project = |x: &[Vec<f64>], what: &str| -> Vec<Vec<f64>> {
            x.iter().map(|row| linear(row, weights, &format!("{p}.attention.self.{what}"))).collect()
        };
        let (q, k, v) = (project(&x, "query"), project(&x, "key"), project(&x, "value"));
        let mut context = vec![vec![0.0; HIDDEN]; x.len()];
        for h in 0..HEADS {
            let dims = h * head..(h + 1) * head;
            for i in 0..x.len() {
                let scores: Vec<f64> = (0..x.len())
                    .map(|j| dims.clone().map(|d| q[i][d] * k[j][d]).sum::<f64>() / (head as f64).sqrt())
                    .collect();
                let most = scores.iter().cloned().fold(f64::MIN, f64::max);
                let exps: Vec<f64> = scores.iter().map(|s| (s - most).exp()).collect();
                let total: f64 = exps.iter().sum();
                for d in dims.clone() {
                    context[i][d] = (0..x.len()).map(|j| exps[j] / total * v[j][d]).sum();
                }
            }
        }
        x = x
            .iter()
            .zip(&context)
            .map(|(row, ctx)| {
                let attended = layer_norm(
                    &add(row, &linear(ctx, weights, &format!("{p}.attention.output.dense"))),
                    weights,
                    &format!("{p}.attention.output.LayerNorm"),
                );
                let inner: Vec<f64> =
                    linear(&attended, weights, &format!("{p}.intermediate.dense")).into_iter().map(gelu).collect();
                let out = linear(&inner, weights, &format!("{p}.output.dense"));
                layer_norm(&add(&attended, &out), weights, &format!("{p}.output.LayerNorm"))
            })
            .collect();
    }
    x
}

/// The sentence embedding of `text`, computed plainly with `pooling`.
fn reference_embedding(weights: &Weights, text: &str, pooling: Pooling, normalize: bool) -> Vec<f64> {
    let hidden = reference_hidden(weights, &reference_tokens(text, 6));
    let n = hidden.len() as f64;
    let column = |d: usize| hidden.iter().map(move |row| row[d]);
    let pooled: Vec<f64> = (0..HIDDEN)
        .map(|d| match pooling {
            Pooling::Mean => column(d).sum::<f64>() / n,
            Pooling::MeanSqrtLen => column(d).sum::<f64>() / n.sqrt(),
            Pooling::Cls => hidden[0][d],
            Pooling::Max => column(d).fold(f64::MIN, f64::max),
        })
        .collect();
    let norm = pooled.iter().map(|v| v * v).sum::<f64>().sqrt();
    pooled.iter().map(|v| if normalize { v / norm } else { *v }).collect()
}

const SENTENCES: [&str; 4] = ["The cat sat on the mat.", "A dog ran.", "The cats sat on a dog. The mat ran.", "Dog."];

#[test]
fn the_encoder_agrees_with_a_plain_computation_of_bert_for_every_pooling() {
    let weights = Weights::random(63);
    for (flag, pooling, normalize) in [
        ("pooling_mode_mean_tokens", Pooling::Mean, true),
        ("pooling_mode_mean_tokens", Pooling::Mean, false),
        ("pooling_mode_cls_token", Pooling::Cls, true),
        ("pooling_mode_max_tokens", Pooling::Max, false),
        ("pooling_mode_mean_sqrt_len_tokens", Pooling::MeanSqrtLen, false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_model(dir.path(), &weights, flag, normalize);
        let encoder = Encoder::load(dir.path()).unwrap();
        assert_eq!(encoder.dim(), HIDDEN);
        // One batch of sentences of different lengths: padding must not count.
        let encoded = encoder.encode(&SENTENCES).unwrap();
        for (text, vector) in SENTENCES.iter().zip(encoded.chunks_exact(HIDDEN)) {
            let expected = reference_embedding(&weights, text, pooling, normalize);
            for (got, want) in vector.iter().zip(&expected) {
                assert!((f64::from(*got) - want).abs() < 1e-5, "{flag} {text:?}: {vector:?} against {expected:?}");
            }
        }
    }
}

#[test]
fn the_embedder_caches_what_it_encoded_and_reuses_it_in_a_later_run() {
    let (model, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_model(model.path(), &Weights::random(1), "pooling_mode_mean_tokens", true);
    let embedder = Embedder::load(model.path(), Some(cache.path())).unwrap();
    let mut first = Vec::new();
    embedder.embed(&["A dog ran.", "The cat sat on the mat.", "A dog ran."], &mut first).unwrap();
    assert_eq!(embedder.encoded(), 2, "a sentence twice in one call is encoded once");
    assert_eq!(first[..HIDDEN], first[2 * HIDDEN..]);
    embedder.embed(&["The cat sat on the mat."], &mut Vec::new()).unwrap();
    assert_eq!(embedder.encoded(), 2);
    embedder.save().unwrap();
    let again = Embedder::load(model.path(), Some(cache.path())).unwrap();
    let mut second = Vec::new();
    again.embed(&["A dog ran.", "The cat sat on the mat.", "A dog ran."], &mut second).unwrap();
    assert_eq!((again.encoded(), &second), (0, &first));
}

/// The error of loading the tiny model after `spoil` changed its directory.
fn load_error(spoil: impl Fn(&Path)) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path(), &Weights::random(2), "pooling_mode_mean_tokens", true);
    spoil(dir.path());
    let error = Encoder::load(dir.path()).unwrap_err().to_string();
    assert!(!error.contains('\n'), "one line: {error}");
    error
}

#[test]
fn a_broken_model_is_a_one_line_error_naming_the_file() {
    let error = load_error(|dir| fs::remove_file(dir.join("tokenizer.json")).unwrap());
    assert!(error.contains("tokenizer.json: cannot read"), "{error}");
    let error = load_error(|dir| fs::write(dir.join("config.json"), "{ not json").unwrap());
    assert!(error.contains("config.json: bad JSON"), "{error}");
    let error = load_error(|dir| fs::write(dir.join("1_Pooling/config.json"), "{}").unwrap());
    assert!(error.contains("1_Pooling/config.json: sets no pooling mode"), "{error}");
    let error = load_error(|dir| fs::write(dir.join("model.safetensors"), "junk").unwrap());
    assert!(error.contains("model.safetensors: not safetensors"), "{error}");
    // Weights of the wrong shape: the configuration says 8 dimensions, the weights have 4.
    let error = load_error(|dir| {
        let mut config: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("config.json")).unwrap()).unwrap();
        config["hidden_size"] = 4.into();
        config["num_attention_heads"] = 1.into();
        fs::write(dir.join("config.json"), config.to_string()).unwrap();
    });
    assert!(error.contains("model.safetensors: ") && error.contains("shape"), "{error}");
}

/// The model `scripts/fetch-models.sh` unpacks, if it did.
fn fetched_model() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    if dir.join("model.safetensors").is_file() {
        return Some(dir);
    }
    // CI sets this where it fetched the model, so that a missing one fails rather than skips.
    assert!(
        std::env::var_os("PAN_DETECT_REQUIRE_MODEL").is_none(),
        "{}: no model (scripts/fetch-models.sh)",
        dir.display()
    );
    eprintln!("SKIPPED: {} is missing; run scripts/fetch-models.sh to test the real model", dir.display());
    None
}

#[test]
fn all_minilm_l6_v2_agrees_with_the_reference_embeddings() {
    let Some(dir) = fetched_model() else { return };
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus-fixtures/embeddings/all-MiniLM-L6-v2.json");
    let fixture: serde_json::Value = serde_json::from_slice(&fs::read(fixture).unwrap()).unwrap();
    let cases = fixture["sentences"].as_array().unwrap();
    let texts: Vec<&str> = cases.iter().map(|case| case["sentence"].as_str().unwrap()).collect();
    let encoder = Encoder::load(&dir).unwrap();
    assert_eq!(encoder.dim(), 384);
    // All in one batch (padded to the longest) and each alone.
    let batched = encoder.encode(&texts).unwrap();
    for (i, (case, vector)) in cases.iter().zip(batched.chunks_exact(384)).enumerate() {
        let alone = encoder.encode(&[texts[i]]).unwrap();
        let expected: Vec<f64> = case["embedding"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        for ((got, single), want) in vector.iter().zip(&alone).zip(&expected) {
            let worst = (f64::from(*got) - want).abs().max((f64::from(*single) - want).abs());
            assert!(worst < 1e-4, "{:?}: {got} / {single} against {want}", texts[i]);
        }
    }
}
