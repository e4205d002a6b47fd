//! The forward pass of a BERT encoder in `f32` (all-MiniLM-L6-v2: 6 layers,
//! 384 wide, 12 heads), one text at a time so no padding is ever computed,
//! ending in mean pooling and L2 normalisation as sentence-transformers does.
//! Knows nothing about tokens beyond their ids.

use super::safetensors::Tensors;

/// The encoder's shape, as all-MiniLM-L6-v2's `config.json` gives it.
pub const WIDTH: usize = 384;
const HEADS: usize = 12;
const HEAD: usize = WIDTH / HEADS;
const INNER: usize = 1536;
const LAYERS: usize = 6;
const VOCAB: usize = 30522;
/// Positions the model has embeddings for.
pub const POSITIONS: usize = 512;
const EPSILON: f32 = 1e-12;

struct Linear {
    /// `[out, in]`, row-major, as PyTorch stores it.
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    inner: Linear,
    out: Linear,
    out_norm: Norm,
}

/// The encoder's weights.
pub struct Bert {
    words: Vec<f32>,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl Bert {
    pub fn load(tensors: &Tensors) -> Result<Bert, String> {
        let linear = |name: &str, inputs: usize, outputs: usize| -> Result<Linear, String> {
            Ok(Linear {
                weight: tensors.f32(&format!("{name}.weight"), &[outputs, inputs])?,
                bias: tensors.f32(&format!("{name}.bias"), &[outputs])?,
                inputs,
                outputs,
            })
        };
        let norm = |name: &str| -> Result<Norm, String> {
            Ok(Norm {
                weight: tensors.f32(&format!("{name}.weight"), &[WIDTH])?,
                bias: tensors.f32(&format!("{name}.bias"), &[WIDTH])?,
            })
        };
        let layers = (0..LAYERS)
            .map(|l| {
                let at = |part: &str| format!("encoder.layer.{l}.{part}");
                Ok(Layer {
                    query: linear(&at("attention.self.query"), WIDTH, WIDTH)?,
                    key: linear(&at("attention.self.key"), WIDTH, WIDTH)?,
                    value: linear(&at("attention.self.value"), WIDTH, WIDTH)?,
                    attention_out: linear(&at("attention.output.dense"), WIDTH, WIDTH)?,
                    attention_norm: norm(&at("attention.output.LayerNorm"))?,
                    inner: linear(&at("intermediate.dense"), WIDTH, INNER)?,
                    out: linear(&at("output.dense"), INNER, WIDTH)?,
                    out_norm: norm(&at("output.LayerNorm"))?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Bert {
            words: tensors.f32("embeddings.word_embeddings.weight", &[VOCAB, WIDTH])?,
            positions: tensors.f32("embeddings.position_embeddings.weight", &[POSITIONS, WIDTH])?,
            token_type: tensors.f32("embeddings.token_type_embeddings.weight", &[2, WIDTH])?,
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
        })
    }

    /// The unit-length mean of the last layer's token states for each text
    /// of `batch` (token ids, at most `POSITIONS` of each are read). The
    /// texts share every matrix product, so the weights are streamed once a
    /// batch, while attention stays within each text.
    pub fn embed_batch(&self, batch: &[Vec<u32>]) -> Vec<Vec<f32>> {
        let mut spans = Vec::with_capacity(batch.len());
        let mut rows = 0;
        for ids in batch {
            let len = ids.len().min(POSITIONS);
            spans.push(Span { start: rows, len });
            rows += len;
        }
        let mut hidden = vec![0.0f32; rows * WIDTH];
        for (ids, span) in batch.iter().zip(&spans) {
            for (t, &id) in ids.iter().take(span.len).enumerate() {
                let id = (id as usize).min(VOCAB - 1);
                let row = &mut hidden[(span.start + t) * WIDTH..(span.start + t + 1) * WIDTH];
                let word = &self.words[id * WIDTH..(id + 1) * WIDTH];
                let position = &self.positions[t * WIDTH..(t + 1) * WIDTH];
                for i in 0..WIDTH {
                    row[i] = word[i] + position[i] + self.token_type[i];
                }
            }
        }
        layer_norm(&mut hidden, &self.embedding_norm);
        let longest = spans.iter().map(|s| s.len).max().unwrap_or(0);
        let mut scratch = Scratch::new(rows, longest);
        for layer in &self.layers {
            layer.forward(&mut hidden, &spans, &mut scratch);
        }
        spans
            .iter()
            .map(|span| {
                let mut pooled = vec![0.0f32; WIDTH];
                for row in hidden[span.start * WIDTH..(span.start + span.len) * WIDTH].chunks_exact(WIDTH) {
                    for (p, h) in pooled.iter_mut().zip(row) {
                        *p += h;
                    }
                }
                let norm = pooled.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                pooled.iter_mut().for_each(|x| *x /= norm);
                pooled
            })
            .collect()
    }
}

/// One text's rows in a batch.
struct Span {
    start: usize,
    len: usize,
}

/// Buffers one batch's pass reuses across layers.
struct Scratch {
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    scores: Vec<f32>,
    context: Vec<f32>,
    projected: Vec<f32>,
    inner: Vec<f32>,
}

impl Scratch {
    fn new(rows: usize, longest: usize) -> Scratch {
        let wide = vec![0.0; rows * WIDTH];
        Scratch {
            q: wide.clone(),
            k: wide.clone(),
            v: wide.clone(),
            scores: vec![0.0; longest * longest],
            context: wide.clone(),
            projected: wide,
            inner: vec![0.0; rows * INNER],
        }
    }
}

impl Layer {
    fn forward(&self, hidden: &mut [f32], spans: &[Span], s: &mut Scratch) {
        let tokens = hidden.len() / WIDTH;
        self.query.apply(hidden, tokens, &mut s.q);
        self.key.apply(hidden, tokens, &mut s.k);
        self.value.apply(hidden, tokens, &mut s.v);
        let scale = 1.0 / (HEAD as f32).sqrt();
        for span in spans.iter().filter(|s| s.len > 0) {
            let n = span.len;
            let scores = &mut s.scores[..n * n];
            for h in 0..HEADS {
                let at = span.start * WIDTH + h * HEAD;
                // scores = Q_h · K_hᵀ: K_h read transposed through its strides.
                gemm(
                    (n, HEAD, n),
                    Matrix { data: &s.q, offset: at, row_step: WIDTH, col_step: 1 },
                    Matrix { data: &s.k, offset: at, row_step: 1, col_step: WIDTH },
                    (scores, 0, n),
                    scale,
                );
                for row in scores.chunks_exact_mut(n) {
                    softmax(row);
                }
                gemm(
                    (n, n, HEAD),
                    Matrix { data: scores, offset: 0, row_step: n, col_step: 1 },
                    Matrix { data: &s.v, offset: at, row_step: WIDTH, col_step: 1 },
                    (&mut s.context, at, WIDTH),
                    1.0,
                );
            }
        }
        self.attention_out.apply(&s.context, tokens, &mut s.projected);
        add_norm(hidden, &s.projected, &self.attention_norm);
        self.inner.apply(hidden, tokens, &mut s.inner);
        s.inner.iter_mut().for_each(|x| *x = gelu(*x));
        self.out.apply(&s.inner, tokens, &mut s.projected);
        add_norm(hidden, &s.projected, &self.out_norm);
    }
}

impl Linear {
    /// `out = x · Wᵀ + b` for `tokens` rows.
    fn apply(&self, x: &[f32], tokens: usize, out: &mut [f32]) {
        gemm(
            (tokens, self.inputs, self.outputs),
            Matrix { data: x, offset: 0, row_step: self.inputs, col_step: 1 },
            Matrix { data: &self.weight, offset: 0, row_step: 1, col_step: self.inputs },
            (out, 0, self.outputs),
            1.0,
        );
        for row in out.chunks_exact_mut(self.outputs).take(tokens) {
            for (o, b) in row.iter_mut().zip(&self.bias) {
                *o += b;
            }
        }
    }
}

/// A read-only matrix inside `data`: element `(i, j)` is `data[offset + i*row_step + j*col_step]`.
struct Matrix<'a> {
    data: &'a [f32],
    offset: usize,
    row_step: usize,
    col_step: usize,
}

impl Matrix<'_> {
    /// Whether every element of an `m × n` view lies inside the data.
    fn fits(&self, m: usize, n: usize) -> bool {
        m == 0 || n == 0 || self.offset + (m - 1) * self.row_step + (n - 1) * self.col_step < self.data.len()
    }
}

/// `C = alpha · A · B` for an `m × k` A and a `k × n` B, where C is
/// `(data, offset, row stride)` with unit column stride; C is overwritten.
fn gemm((m, k, n): (usize, usize, usize), a: Matrix, b: Matrix, c: (&mut [f32], usize, usize), alpha: f32) {
    let (c_data, c_offset, c_rows) = c;
    let c_fits = m == 0 || n == 0 || c_offset + (m - 1) * c_rows + (n - 1) < c_data.len();
    assert!(a.fits(m, k) && b.fits(k, n) && c_fits, "matrix view out of bounds");
    // SAFETY: the assertion above proves every element sgemm reads from A and
    // B and writes to C lies inside its slice; C does not alias A or B (it is
    // a distinct `&mut`).
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a.data.as_ptr().add(a.offset),
            a.row_step as isize,
            a.col_step as isize,
            b.data.as_ptr().add(b.offset),
            b.row_step as isize,
            b.col_step as isize,
            0.0,
            c_data.as_mut_ptr().add(c_offset),
            c_rows as isize,
            1,
        );
    }
}

fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for x in row.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    row.iter_mut().for_each(|x| *x /= sum);
}

/// `hidden = LayerNorm(hidden + delta)`, row by row.
fn add_norm(hidden: &mut [f32], delta: &[f32], norm: &Norm) {
    for (h, d) in hidden.iter_mut().zip(delta) {
        *h += d;
    }
    layer_norm(hidden, norm);
}

fn layer_norm(hidden: &mut [f32], norm: &Norm) {
    for row in hidden.chunks_exact_mut(WIDTH) {
        let mean = row.iter().sum::<f32>() / WIDTH as f32;
        let var = row.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / WIDTH as f32;
        let inv = 1.0 / (var + EPSILON).sqrt();
        for ((x, w), b) in row.iter_mut().zip(&norm.weight).zip(&norm.bias) {
            *x = (*x - mean) * inv * w + b;
        }
    }
}

/// BERT's exact GELU, `x · Φ(x)`.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function to about 1.2e-7 (Numerical Recipes' `erfc` by Chebyshev fit).
fn erf(x: f32) -> f32 {
    let z = f64::from(x).abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    let value = 1.0 - erfc;
    (if x >= 0.0 { value } else { -value }) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [(0.0, 0.0), (0.5, 0.520_499_9), (1.0, 0.842_700_8), (-2.0, -0.995_322_3), (3.5, 0.999_999_3)]
        {
            assert!((erf(x) - want).abs() < 2e-7, "erf({x}) = {}, want {want}", erf(x));
        }
    }

    #[test]
    fn gemm_reads_transposed_views_through_strides() {
        // A = [[1,2],[3,4]], W = [[5,6],[7,8]] stored as [out, in]; A·Wᵀ = [[17,23],[39,53]].
        let a = [1.0, 2.0, 3.0, 4.0];
        let w = [5.0, 6.0, 7.0, 8.0];
        let mut c = [0.0; 4];
        gemm(
            (2, 2, 2),
            Matrix { data: &a, offset: 0, row_step: 2, col_step: 1 },
            Matrix { data: &w, offset: 0, row_step: 1, col_step: 2 },
            (&mut c, 0, 2),
            1.0,
        );
        assert_eq!(c, [17.0, 23.0, 39.0, 53.0]);
    }
}
