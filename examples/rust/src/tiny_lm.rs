//! The first steps of examples/tiny_lm in Rust, on the CPU defaults: a character-level
//! model (embedding -> rms_norm -> matmul -> swiglu -> matmul -> cross-entropy), forward
//! and backward through every op, SGD through axpy, on the tiny_lm corpus. Prints the loss
//! per step and exits non-zero unless it fell.
//!
//!     cargo run -p opkit-examples --bin tiny_lm -- [steps]
use opkit::{Result, Tensor, TensorMut};

const CONTEXT: usize = 4;
const DIM: usize = 16;
const HIDDEN: usize = 64;
const BATCH: usize = 64;

/// Deterministic values in [-scale, scale) (a 64-bit LCG; no crates).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn fill(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| (self.next() as f32 / (1u64 << 31) as f32 * 2.0 - 1.0) * scale).collect()
    }
}

fn t<'a>(v: &'a [f32], s: &[usize]) -> Result<Tensor<'a>> {
    Tensor::new(v, &s.iter().map(|&x| x as i64).collect::<Vec<_>>())
}
fn tm<'a>(v: &'a mut [f32], s: &[usize]) -> Result<TensorMut<'a>> {
    TensorMut::new(v, &s.iter().map(|&x| x as i64).collect::<Vec<_>>())
}

fn main() -> Result<()> {
    let steps: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(60);
    let corpus_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tiny_lm/corpus.txt");
    let text = std::fs::read(corpus_path).expect("examples/tiny_lm/corpus.txt");
    let mut vocab: Vec<u8> = text.clone();
    vocab.sort_unstable();
    vocab.dedup();
    let v = vocab.len();
    let id = |c: u8| vocab.binary_search(&c).unwrap() as i64;
    let ids_all: Vec<i64> = text.iter().map(|&c| id(c)).collect();

    let mut rng = Lcg(42);
    let (d_in, f2) = (CONTEXT * DIM, 2 * HIDDEN);
    let mut emb = rng.fill(v * DIM, 0.5);
    let mut norm_w = vec![1.0f32; d_in];
    let mut w1 = rng.fill(d_in * f2, (1.0 / d_in as f32).sqrt());
    let mut w2 = rng.fill(HIDDEN * v, (1.0 / HIDDEN as f32).sqrt());
    let lr = 0.5f32;
    let (mut first, mut last) = (0f32, 0f32);
    println!("tiny_lm (Rust): vocabulary {}, {} parameters, batch {}; served by: rms_norm {}, matmul {}",
             v, emb.len() + norm_w.len() + w1.len() + w2.len(), BATCH,
             opkit::op_resolve("rms_norm_forward", opkit::DeviceType::Cpu)?,
             opkit::op_resolve("matmul", opkit::DeviceType::Cpu)?);

    for step in 0..steps {
        // A batch of contexts and their next characters.
        let mut ids = vec![0i64; BATCH * CONTEXT];
        let mut target = vec![0i64; BATCH];
        for b in 0..BATCH {
            let start = rng.next() as usize % (ids_all.len() - CONTEXT - 1);
            ids[b * CONTEXT..(b + 1) * CONTEXT].copy_from_slice(&ids_all[start..start + CONTEXT]);
            target[b] = ids_all[start + CONTEXT];
        }
        let ids_t = Tensor::new(&ids, &[BATCH as i64, CONTEXT as i64])?;

        // Forward.
        let mut h0 = vec![0f32; BATCH * d_in]; // [B, C, D] seen as [B, C*D]
        opkit::embedding_forward(&t(&emb, &[v, DIM])?, &ids_t, &mut tm(&mut h0, &[BATCH, CONTEXT, DIM])?, None)?;
        let (mut h1, mut rstd) = (vec![0f32; BATCH * d_in], vec![0f32; BATCH]);
        opkit::rms_norm_forward(&t(&h0, &[BATCH, d_in])?, Some(&t(&norm_w, &[d_in])?), 1e-6, 0.0,
                                &mut tm(&mut h1, &[BATCH, d_in])?, Some(&mut tm(&mut rstd, &[BATCH])?), None)?;
        let mut u = vec![0f32; BATCH * f2];
        opkit::matmul(&t(&h1, &[BATCH, d_in])?, &t(&w1, &[d_in, f2])?, &mut tm(&mut u, &[BATCH, f2])?, 1.0, 0.0, 0, 0, None)?;
        // The gate and up halves are strided views into u: rows of 2F, the first and last F.
        let a = Tensor::strided(&u, None, &[BATCH as i64, HIDDEN as i64], &[f2 as i64, 1], 0)?;
        let bh = Tensor::strided(&u, None, &[BATCH as i64, HIDDEN as i64], &[f2 as i64, 1], HIDDEN)?;
        let mut g = vec![0f32; BATCH * HIDDEN];
        opkit::swiglu_forward(&a, &bh, &mut tm(&mut g, &[BATCH, HIDDEN])?, None)?;
        let mut logits = vec![0f32; BATCH * v];
        opkit::matmul(&t(&g, &[BATCH, HIDDEN])?, &t(&w2, &[HIDDEN, v])?, &mut tm(&mut logits, &[BATCH, v])?, 1.0, 0.0, 0, 0, None)?;
        let (mut loss, mut dlogits) = ([0f32], vec![0f32; BATCH * v]);
        opkit::cross_entropy_forward(&t(&logits, &[BATCH, v])?, &Tensor::new(&target, &[BATCH as i64])?, -100, 0.0,
                                     opkit::REDUCTION_MEAN, Some(&mut tm(&mut loss, &[])?), None,
                                     Some(&mut tm(&mut dlogits, &[BATCH, v])?), None)?;

        // Backward.
        let (mut dw2, mut dg) = (vec![0f32; HIDDEN * v], vec![0f32; BATCH * HIDDEN]);
        opkit::matmul(&t(&g, &[BATCH, HIDDEN])?, &t(&dlogits, &[BATCH, v])?, &mut tm(&mut dw2, &[HIDDEN, v])?, 1.0, 0.0, 1, 0, None)?;
        opkit::matmul(&t(&dlogits, &[BATCH, v])?, &t(&w2, &[HIDDEN, v])?, &mut tm(&mut dg, &[BATCH, HIDDEN])?, 1.0, 0.0, 0, 1, None)?;
        // Two mutable views interleaved in one slice cannot both be borrowed in safe Rust
        // (docs/rust.md): the gradients of the halves go to their own buffers and are
        // joined into du's rows.
        let (mut da, mut db) = (vec![0f32; BATCH * HIDDEN], vec![0f32; BATCH * HIDDEN]);
        opkit::swiglu_backward(&t(&dg, &[BATCH, HIDDEN])?, &a, &bh, &mut tm(&mut da, &[BATCH, HIDDEN])?,
                               &mut tm(&mut db, &[BATCH, HIDDEN])?, None)?;
        let mut du = vec![0f32; BATCH * f2];
        for r in 0..BATCH {
            du[r * f2..r * f2 + HIDDEN].copy_from_slice(&da[r * HIDDEN..(r + 1) * HIDDEN]);
            du[r * f2 + HIDDEN..(r + 1) * f2].copy_from_slice(&db[r * HIDDEN..(r + 1) * HIDDEN]);
        }
        let (mut dw1, mut dh1) = (vec![0f32; d_in * f2], vec![0f32; BATCH * d_in]);
        opkit::matmul(&t(&h1, &[BATCH, d_in])?, &t(&du, &[BATCH, f2])?, &mut tm(&mut dw1, &[d_in, f2])?, 1.0, 0.0, 1, 0, None)?;
        opkit::matmul(&t(&du, &[BATCH, f2])?, &t(&w1, &[d_in, f2])?, &mut tm(&mut dh1, &[BATCH, d_in])?, 1.0, 0.0, 0, 1, None)?;
        let (mut dh0, mut dnorm) = (vec![0f32; BATCH * d_in], vec![0f32; d_in]);
        opkit::rms_norm_backward(&t(&dh1, &[BATCH, d_in])?, &t(&h0, &[BATCH, d_in])?, Some(&t(&norm_w, &[d_in])?),
                                 &t(&rstd, &[BATCH])?, 0.0, &mut tm(&mut dh0, &[BATCH, d_in])?,
                                 Some(&mut tm(&mut dnorm, &[d_in])?), None)?;
        let mut demb = vec![0f32; v * DIM];
        opkit::embedding_backward(&t(&dh0, &[BATCH, CONTEXT, DIM])?, &ids_t, -1, &mut tm(&mut demb, &[v, DIM])?, None)?;

        // SGD.
        for (p, gr) in [(&mut emb, &demb), (&mut norm_w, &dnorm), (&mut w1, &dw1), (&mut w2, &dw2)] {
            let n = p.len();
            opkit::axpy(-lr, &t(gr, &[n])?, &mut tm(p, &[n])?, None)?;
        }
        if step == 0 {
            first = loss[0];
        }
        last = loss[0];
        if step % 10 == 0 || step + 1 == steps {
            println!("step {:4}  loss {:.4}", step, loss[0]);
        }
    }
    println!("final loss {:.6} (from {:.6})", last, first);
    if !(last < first) {
        eprintln!("tiny_lm: the loss did not fall");
        std::process::exit(1);
    }
    Ok(())
}
