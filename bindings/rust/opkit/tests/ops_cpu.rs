//! Every op of the spec on the CPU defaults, through the safe wrapper, against values this
//! test computes in f64 with plain Rust. Tolerances: f32 results within 1e-5 relative +
//! 1e-6 absolute of the f64 value (docs/tolerances.md's f32 rows are of this order:
//! opkit accumulates in fp32); the bf16 case within bf16's resolution (2^-8 relative).
use opkit::{DType, Status, Tensor, TensorMut};

fn close(got: &[f32], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{}: length", what);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let tol = 1e-5 * w.abs() + 1e-6;
        assert!((g as f64 - w).abs() <= tol, "{}[{}] = {}, want {} (tol {})", what, i, g, w, tol);
    }
}

/// Deterministic values in [-2, 2) (a 64-bit LCG; no crates).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n).map(|_| {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((s >> 40) as f64 / (1u64 << 24) as f64 * 4.0 - 2.0) as f32
    }).collect()
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

const R: usize = 3;
const N: usize = 8;

#[test]
fn rms_norm_forward_and_backward() {
    let (x, w, dy) = (values(R * N, 1), values(N, 2), values(R * N, 3));
    let (mut y, mut rstd) = (vec![0f32; R * N], vec![0f32; R]);
    let (eps, off) = (1e-6f32, 0.5f32);
    opkit::rms_norm_forward(&Tensor::new(&x, &[R as i64, N as i64]).unwrap(), Some(&Tensor::new(&w, &[N as i64]).unwrap()),
                            eps, off, &mut TensorMut::new(&mut y, &[R as i64, N as i64]).unwrap(),
                            Some(&mut TensorMut::new(&mut rstd, &[R as i64]).unwrap()), None).unwrap();
    let (xd, wd, dyd) = (f64s(&x), f64s(&w), f64s(&dy));
    let mut want_y = vec![0.0; R * N];
    let mut want_r = vec![0.0; R];
    let (mut want_dx, mut want_dw) = (vec![0.0; R * N], vec![0.0; N]);
    for r in 0..R {
        let row = &xd[r * N..(r + 1) * N];
        let rs = 1.0 / (row.iter().map(|v| v * v).sum::<f64>() / N as f64 + eps as f64).sqrt();
        want_r[r] = rs;
        let g: Vec<f64> = (0..N).map(|c| dyd[r * N + c] * (wd[c] + off as f64)).collect();
        let gx: f64 = (0..N).map(|c| g[c] * row[c]).sum::<f64>() / N as f64;
        for c in 0..N {
            want_y[r * N + c] = row[c] * rs * (wd[c] + off as f64);
            want_dx[r * N + c] = rs * g[c] - row[c] * rs.powi(3) * gx;
            want_dw[c] += dyd[r * N + c] * row[c] * rs;
        }
    }
    close(&y, &want_y, "rms_norm y");
    close(&rstd, &want_r, "rms_norm rstd");
    let (mut dx, mut dw) = (vec![0f32; R * N], vec![0f32; N]);
    opkit::rms_norm_backward(&Tensor::new(&dy, &[R as i64, N as i64]).unwrap(), &Tensor::new(&x, &[R as i64, N as i64]).unwrap(),
                             Some(&Tensor::new(&w, &[N as i64]).unwrap()), &Tensor::new(&rstd, &[R as i64]).unwrap(), off,
                             &mut TensorMut::new(&mut dx, &[R as i64, N as i64]).unwrap(),
                             Some(&mut TensorMut::new(&mut dw, &[N as i64]).unwrap()), None).unwrap();
    close(&dx, &want_dx, "rms_norm dx");
    close(&dw, &want_dw, "rms_norm dw");
    let d = opkit::last_dispatch().unwrap();
    assert_eq!((d.op.as_str(), d.served_by.as_str(), d.status), ("rms_norm_backward", "default", 0));
}

#[test]
fn layer_norm_forward_and_backward() {
    let (x, w, b, dy) = (values(R * N, 4), values(N, 5), values(N, 6), values(R * N, 7));
    let s2 = [R as i64, N as i64];
    let (mut y, mut mean, mut rstd) = (vec![0f32; R * N], vec![0f32; R], vec![0f32; R]);
    let eps = 1e-5f32;
    opkit::layer_norm_forward(&Tensor::new(&x, &s2).unwrap(), Some(&Tensor::new(&w, &[N as i64]).unwrap()),
                              Some(&Tensor::new(&b, &[N as i64]).unwrap()), eps, &mut TensorMut::new(&mut y, &s2).unwrap(),
                              Some(&mut TensorMut::new(&mut mean, &[R as i64]).unwrap()),
                              Some(&mut TensorMut::new(&mut rstd, &[R as i64]).unwrap()), None).unwrap();
    let (xd, wd, bd, dyd) = (f64s(&x), f64s(&w), f64s(&b), f64s(&dy));
    let (mut wy, mut wm, mut wr) = (vec![0.0; R * N], vec![0.0; R], vec![0.0; R]);
    let (mut wdx, mut wdw, mut wdb) = (vec![0.0; R * N], vec![0.0; N], vec![0.0; N]);
    for r in 0..R {
        let row = &xd[r * N..(r + 1) * N];
        let mu = row.iter().sum::<f64>() / N as f64;
        let var = row.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / N as f64;
        let rs = 1.0 / (var + eps as f64).sqrt();
        wm[r] = mu;
        wr[r] = rs;
        let xh: Vec<f64> = row.iter().map(|v| (v - mu) * rs).collect();
        let g: Vec<f64> = (0..N).map(|c| dyd[r * N + c] * wd[c]).collect();
        let gm = g.iter().sum::<f64>() / N as f64;
        let gxm = (0..N).map(|c| g[c] * xh[c]).sum::<f64>() / N as f64;
        for c in 0..N {
            wy[r * N + c] = xh[c] * wd[c] + bd[c];
            wdx[r * N + c] = rs * (g[c] - gm - xh[c] * gxm);
            wdw[c] += dyd[r * N + c] * xh[c];
            wdb[c] += dyd[r * N + c];
        }
    }
    close(&y, &wy, "layer_norm y");
    close(&mean, &wm, "layer_norm mean");
    close(&rstd, &wr, "layer_norm rstd");
    let (mut dx, mut dw, mut db) = (vec![0f32; R * N], vec![0f32; N], vec![0f32; N]);
    opkit::layer_norm_backward(&Tensor::new(&dy, &s2).unwrap(), &Tensor::new(&x, &s2).unwrap(),
                               Some(&Tensor::new(&w, &[N as i64]).unwrap()), &Tensor::new(&mean, &[R as i64]).unwrap(),
                               &Tensor::new(&rstd, &[R as i64]).unwrap(), &mut TensorMut::new(&mut dx, &s2).unwrap(),
                               Some(&mut TensorMut::new(&mut dw, &[N as i64]).unwrap()),
                               Some(&mut TensorMut::new(&mut db, &[N as i64]).unwrap()), None).unwrap();
    close(&dx, &wdx, "layer_norm dx");
    close(&dw, &wdw, "layer_norm dw");
    close(&db, &wdb, "layer_norm db");
}

#[test]
fn softmax_forward_and_backward() {
    let (x, dy) = (values(R * N, 8), values(R * N, 9));
    let s2 = [R as i64, N as i64];
    let mut y = vec![0f32; R * N];
    opkit::softmax_forward(&Tensor::new(&x, &s2).unwrap(), &mut TensorMut::new(&mut y, &s2).unwrap(), None).unwrap();
    let xd = f64s(&x);
    let mut wy = vec![0.0; R * N];
    for r in 0..R {
        let row = &xd[r * N..(r + 1) * N];
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        for c in 0..N {
            wy[r * N + c] = (row[c] - m).exp() / s;
        }
    }
    close(&y, &wy, "softmax y");
    let mut dx = vec![0f32; R * N];
    opkit::softmax_backward(&Tensor::new(&dy, &s2).unwrap(), &Tensor::new(&y, &s2).unwrap(),
                            &mut TensorMut::new(&mut dx, &s2).unwrap(), None).unwrap();
    let (yd, dyd) = (f64s(&y), f64s(&dy));
    let mut wdx = vec![0.0; R * N];
    for r in 0..R {
        let dot: f64 = (0..N).map(|c| dyd[r * N + c] * yd[r * N + c]).sum();
        for c in 0..N {
            wdx[r * N + c] = yd[r * N + c] * (dyd[r * N + c] - dot);
        }
    }
    close(&dx, &wdx, "softmax dx");
}

fn sigmoid(a: f64) -> f64 {
    1.0 / (1.0 + (-a).exp())
}

/// erf by its Maclaurin series (inputs here are within |x| < 3: 1e-12 accurate).
fn erf(x: f64) -> f64 {
    let (mut term, mut sum, mut n) = (x, x, 0.0);
    while term.abs() > 1e-17 {
        n += 1.0;
        term *= -x * x / n;
        sum += term / (2.0 * n + 1.0);
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

#[test]
fn swiglu_and_geglu_forward_and_backward() {
    let (a, b, dy) = (values(R * N, 10), values(R * N, 11), values(R * N, 12));
    let s2 = [R as i64, N as i64];
    let (ad, bd, dyd) = (f64s(&a), f64s(&b), f64s(&dy));
    let mut y = vec![0f32; R * N];
    opkit::swiglu_forward(&Tensor::new(&a, &s2).unwrap(), &Tensor::new(&b, &s2).unwrap(),
                          &mut TensorMut::new(&mut y, &s2).unwrap(), None).unwrap();
    close(&y, &ad.iter().zip(&bd).map(|(a, b)| a * sigmoid(*a) * b).collect::<Vec<_>>(), "swiglu y");
    let (mut da, mut db) = (vec![0f32; R * N], vec![0f32; R * N]);
    opkit::swiglu_backward(&Tensor::new(&dy, &s2).unwrap(), &Tensor::new(&a, &s2).unwrap(), &Tensor::new(&b, &s2).unwrap(),
                           &mut TensorMut::new(&mut da, &s2).unwrap(), &mut TensorMut::new(&mut db, &s2).unwrap(), None).unwrap();
    let wda: Vec<f64> = (0..R * N).map(|i| { let s = sigmoid(ad[i]); dyd[i] * bd[i] * s * (1.0 + ad[i] * (1.0 - s)) }).collect();
    let wdb: Vec<f64> = (0..R * N).map(|i| dyd[i] * ad[i] * sigmoid(ad[i])).collect();
    close(&da, &wda, "swiglu da");
    close(&db, &wdb, "swiglu db");

    let k = (2.0 / std::f64::consts::PI).sqrt();
    for approximate in [opkit::GELU_NONE, opkit::GELU_TANH] {
        let gelu = |a: f64| -> (f64, f64) {  // (gelu(a), gelu'(a))
            if approximate == opkit::GELU_TANH {
                let t = (k * (a + 0.044715 * a.powi(3))).tanh();
                (0.5 * a * (1.0 + t), 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * a * a))
            } else {
                let cdf = 0.5 * (1.0 + erf(a / std::f64::consts::SQRT_2));
                (a * cdf, cdf + a * (-0.5 * a * a).exp() / (2.0 * std::f64::consts::PI).sqrt())
            }
        };
        let mut y = vec![0f32; R * N];
        opkit::geglu_forward(&Tensor::new(&a, &s2).unwrap(), &Tensor::new(&b, &s2).unwrap(), approximate,
                             &mut TensorMut::new(&mut y, &s2).unwrap(), None).unwrap();
        close(&y, &(0..R * N).map(|i| gelu(ad[i]).0 * bd[i]).collect::<Vec<_>>(), "geglu y");
        let (mut da, mut db) = (vec![0f32; R * N], vec![0f32; R * N]);
        opkit::geglu_backward(&Tensor::new(&dy, &s2).unwrap(), &Tensor::new(&a, &s2).unwrap(), &Tensor::new(&b, &s2).unwrap(),
                              approximate, &mut TensorMut::new(&mut da, &s2).unwrap(),
                              &mut TensorMut::new(&mut db, &s2).unwrap(), None).unwrap();
        close(&da, &(0..R * N).map(|i| dyd[i] * bd[i] * gelu(ad[i]).1).collect::<Vec<_>>(), "geglu da");
        close(&db, &(0..R * N).map(|i| dyd[i] * gelu(ad[i]).0).collect::<Vec<_>>(), "geglu db");
    }
}

/// cos/sin [t, d] of rotate-half angles, f32.
fn rope_tables(t: usize, d: usize) -> (Vec<f32>, Vec<f32>) {
    let ang: Vec<f64> = (0..t * d / 2).map(|i| 0.3 * i as f64 + 0.1).collect();
    let mut cos = vec![0f32; t * d];
    let mut sin = vec![0f32; t * d];
    for p in 0..t {
        for j in 0..d {
            let a = ang[p * d / 2 + j % (d / 2)];
            cos[p * d + j] = a.cos() as f32;
            sin[p * d + j] = a.sin() as f32;
        }
    }
    (cos, sin)
}

/// rope of x [b, t, h, d] (dense) in f64: forward, or its transpose (backward).
fn rope_ref(x: &[f32], cos: &[f32], sin: &[f32], (b, t, h, d): (usize, usize, usize, usize), backward: bool) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    let half = d / 2;
    for bi in 0..b {
        for p in 0..t {
            for hi in 0..h {
                let base = ((bi * t + p) * h + hi) * d;
                for j in 0..d {
                    let (c, s) = (cos[p * d + j] as f64, sin[p * d + j] as f64);
                    out[base + j] = if !backward {
                        // NeoX rotate-half: rot(v)[j] = -v[j + half] (j < half), v[j - half] (j >= half)
                        let rot = if j < half { -(x[base + j + half] as f64) } else { x[base + j - half] as f64 };
                        x[base + j] as f64 * c + rot * s
                    } else {
                        // The transpose: dx[j] = dy[j] c[j] + (j < half ? dy[j+half] s[j+half] : -dy[j-half] s[j-half])
                        let back = if j < half {
                            x[base + j + half] as f64 * sin[p * d + j + half] as f64
                        } else {
                            -(x[base + j - half] as f64) * sin[p * d + j - half] as f64
                        };
                        x[base + j] as f64 * c + back
                    };
                }
            }
        }
    }
    out
}

#[test]
fn rope_forward_and_backward() {
    let (b, t, h, d) = (2usize, 3usize, 2usize, 4usize);
    let shape = [b as i64, t as i64, h as i64, d as i64];
    let x = values(b * t * h * d, 13);
    let dy = values(b * t * h * d, 14);
    let (cos, sin) = rope_tables(t, d);
    let cs = [t as i64, d as i64];
    let mut y = vec![0f32; x.len()];
    opkit::rope_forward(&Tensor::new(&x, &shape).unwrap(), &Tensor::new(&cos, &cs).unwrap(), &Tensor::new(&sin, &cs).unwrap(),
                        &mut TensorMut::new(&mut y, &shape).unwrap(), None).unwrap();
    let mut dx = vec![0f32; x.len()];
    opkit::rope_backward(&Tensor::new(&dy, &shape).unwrap(), &Tensor::new(&cos, &cs).unwrap(), &Tensor::new(&sin, &cs).unwrap(),
                         &mut TensorMut::new(&mut dx, &shape).unwrap(), None).unwrap();
    close(&y, &rope_ref(&x, &cos, &sin, (b, t, h, d), false), "rope y");
    close(&dx, &rope_ref(&dy, &cos, &sin, (b, t, h, d), true), "rope dx");
}

#[test]
fn rope_qk_forward_and_backward_on_views_of_one_fused_qkv_buffer() {
    // q [b,t,3,d] and k [b,t,1,d] (grouped KV heads), views into qkv [b,t,3+1+1,d]
    let (b, t, hq, hk, hv, d) = (2usize, 3usize, 3usize, 1usize, 1usize, 6usize);
    let h = hq + hk + hv;
    let strides = [(t * h * d) as i64, (h * d) as i64, d as i64, 1];
    let (qs, ks) = ([b as i64, t as i64, hq as i64, d as i64], [b as i64, t as i64, hk as i64, d as i64]);
    let (cos, sin) = rope_tables(t, d);
    let cs = [t as i64, d as i64];
    let (ct, st) = (Tensor::new(&cos, &cs).unwrap(), Tensor::new(&sin, &cs).unwrap());
    // the heads [h0, h0 + n) of a [b,t,h,d] buffer, dense
    let heads = |v: &[f32], h0: usize, n: usize| -> Vec<f32> {
        (0..b * t).flat_map(|bt| v[(bt * h + h0) * d..(bt * h + h0 + n) * d].to_vec()).collect()
    };
    for backward in [false, true] {
        let qkv = values(b * t * h * d, if backward { 16 } else { 15 });
        let q = Tensor::strided(&qkv, None, &qs, &strides, 0).unwrap();
        let k = Tensor::strided(&qkv, None, &ks, &strides, hq * d).unwrap();
        let (mut q_out, mut k_out) = (vec![f32::NAN; b * t * hq * d], vec![f32::NAN; b * t * hk * d]);
        {
            let (mut qo, mut ko) = (TensorMut::new(&mut q_out, &qs).unwrap(), TensorMut::new(&mut k_out, &ks).unwrap());
            if backward {
                opkit::rope_qk_backward(&q, &k, &ct, &st, &mut qo, &mut ko, None).unwrap();
            } else {
                opkit::rope_qk_forward(&q, &k, &ct, &st, &mut qo, &mut ko, None).unwrap();
            }
        }
        let what = if backward { "rope_qk_backward" } else { "rope_qk_forward" };
        close(&q_out, &rope_ref(&heads(&qkv, 0, hq), &cos, &sin, (b, t, hq, d), backward), &format!("{} q", what));
        close(&k_out, &rope_ref(&heads(&qkv, hq, hk), &cos, &sin, (b, t, hk, d), backward), &format!("{} k", what));
        // bit for bit two rope calls
        let (mut q1, mut k1) = (vec![0f32; q_out.len()], vec![0f32; k_out.len()]);
        let rope = if backward { opkit::rope_backward } else { opkit::rope_forward };
        rope(&q, &ct, &st, &mut TensorMut::new(&mut q1, &qs).unwrap(), None).unwrap();
        rope(&k, &ct, &st, &mut TensorMut::new(&mut k1, &ks).unwrap(), None).unwrap();
        assert_eq!(q_out, q1, "{} q against rope", what);
        assert_eq!(k_out, k1, "{} k against rope", what);
    }
    // k's T must be q's: InvalidArgument, naming the op
    let other = vec![0f32; b * 4 * hk * d];
    let k_t4 = Tensor::new(&other, &[b as i64, 4, hk as i64, d as i64]).unwrap();
    let q_only = vec![0f32; b * t * hq * d];
    let (mut qo, mut ko) = (vec![0f32; b * t * hq * d], vec![0f32; b * 4 * hk * d]);
    let err = opkit::rope_qk_forward(&Tensor::new(&q_only, &qs).unwrap(), &k_t4, &ct, &st,
                                     &mut TensorMut::new(&mut qo, &qs).unwrap(),
                                     &mut TensorMut::new(&mut ko, &[b as i64, 4, hk as i64, d as i64]).unwrap(), None)
        .unwrap_err();
    assert_eq!(err.status, Status::InvalidArgument);
    assert!(err.message.contains("rope_qk_forward: k has shape"), "{}", err.message);
}

#[test]
fn cross_entropy_forward_and_backward() {
    let (rows, v) = (4usize, 6usize);
    let logits = values(rows * v, 15);
    let target: Vec<i64> = vec![1, -100, 5, 0]; // row 1 ignored
    let (eps, ignore) = (0.1f32, -100i64);
    let ls = [rows as i64, v as i64];
    let (mut loss, mut lse, mut dl) = (vec![0f32; 1], vec![0f32; rows], vec![0f32; rows * v]);
    opkit::cross_entropy_forward(&Tensor::new(&logits, &ls).unwrap(), &Tensor::new(&target, &[rows as i64]).unwrap(),
                                 ignore, eps, opkit::REDUCTION_MEAN, Some(&mut TensorMut::new(&mut loss, &[]).unwrap()),
                                 Some(&mut TensorMut::new(&mut lse, &[rows as i64]).unwrap()),
                                 Some(&mut TensorMut::new(&mut dl, &ls).unwrap()), None).unwrap();
    let l = f64s(&logits);
    let valid = target.iter().filter(|&&t| t != ignore).count() as f64;
    let (mut want_loss, mut want_lse, mut want_dl) = (0.0, vec![0.0; rows], vec![0.0; rows * v]);
    for r in 0..rows {
        let row = &l[r * v..(r + 1) * v];
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z = m + row.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
        want_lse[r] = z;
        if target[r] == ignore {
            continue; // loss 0, gradient row 0
        }
        let t = target[r] as usize;
        let sum_x: f64 = row.iter().sum();
        want_loss += (z - (1.0 - eps as f64) * row[t] - eps as f64 / v as f64 * sum_x) / valid;
        for c in 0..v {
            let onehot = if c == t { 1.0 - eps as f64 } else { 0.0 };
            want_dl[r * v + c] = ((row[c] - z).exp() - onehot - eps as f64 / v as f64) / valid;
        }
    }
    close(&loss, &[want_loss], "cross_entropy loss");
    // lse of an ignored row is not specified; compare the valid rows.
    for r in [0, 2, 3] {
        close(&lse[r..r + 1], &want_lse[r..r + 1], "cross_entropy lse");
    }
    close(&dl, &want_dl, "cross_entropy dlogits (forward)");
    // The backward with dloss = 2 from the forward's lse: twice the gradient.
    let dloss = [2.0f32];
    let mut dl2 = vec![0f32; rows * v];
    opkit::cross_entropy_backward(&Tensor::new(&dloss, &[]).unwrap(), &Tensor::new(&logits, &ls).unwrap(),
                                  &Tensor::new(&target, &[rows as i64]).unwrap(), Some(&Tensor::new(&lse, &[rows as i64]).unwrap()),
                                  ignore, eps, opkit::REDUCTION_MEAN, &mut TensorMut::new(&mut dl2, &ls).unwrap(), None).unwrap();
    close(&dl2, &want_dl.iter().map(|g| 2.0 * g).collect::<Vec<_>>(), "cross_entropy dlogits (backward)");
}

#[test]
fn embedding_forward_and_backward() {
    let (vocab, d) = (5usize, 3usize);
    let w = values(vocab * d, 16);
    let ids: Vec<i32> = vec![4, 0, 4, 2];
    let mut y = vec![0f32; ids.len() * d];
    opkit::embedding_forward(&Tensor::new(&w, &[vocab as i64, d as i64]).unwrap(), &Tensor::new(&ids, &[ids.len() as i64]).unwrap(),
                             &mut TensorMut::new(&mut y, &[ids.len() as i64, d as i64]).unwrap(), None).unwrap();
    let wy: Vec<f64> = ids.iter().flat_map(|&i| (0..d).map(move |c| (i as usize, c))).map(|(i, c)| w[i * d + c] as f64).collect();
    close(&y, &wy, "embedding y");
    let dy = values(ids.len() * d, 17);
    let mut dw = vec![9f32; vocab * d]; // opkit zeroes it first
    opkit::embedding_backward(&Tensor::new(&dy, &[ids.len() as i64, d as i64]).unwrap(), &Tensor::new(&ids, &[ids.len() as i64]).unwrap(),
                              0, &mut TensorMut::new(&mut dw, &[vocab as i64, d as i64]).unwrap(), None).unwrap();
    let mut wdw = vec![0.0; vocab * d];
    for (k, &i) in ids.iter().enumerate() {
        if i == 0 {
            continue; // padding_idx 0 gets no gradient
        }
        for c in 0..d {
            wdw[i as usize * d + c] += dy[k * d + c] as f64;
        }
    }
    close(&dw, &wdw, "embedding dweight");
}

#[test]
fn matmul_and_axpy() {
    let (m, k, n) = (3usize, 4usize, 2usize);
    let a = values(m * k, 18);
    let bt = values(n * k, 19); // b given transposed: [n, k]
    let mut c = values(m * n, 20);
    let c0 = f64s(&c);
    opkit::matmul(&Tensor::new(&a, &[m as i64, k as i64]).unwrap(), &Tensor::new(&bt, &[n as i64, k as i64]).unwrap(),
                  &mut TensorMut::new(&mut c, &[m as i64, n as i64]).unwrap(), 0.5, 2.0, 0, 1, None).unwrap();
    let mut wc = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..k).map(|p| a[i * k + p] as f64 * bt[j * k + p] as f64).sum();
            wc[i * n + j] = 0.5 * dot + 2.0 * c0[i * n + j];
        }
    }
    close(&c, &wc, "matmul c");

    let x = values(7, 21);
    let mut y = values(7, 22);
    let y0 = f64s(&y);
    opkit::axpy(-1.5, &Tensor::new(&x, &[7]).unwrap(), &mut TensorMut::new(&mut y, &[7]).unwrap(), None).unwrap();
    close(&y, &(0..7).map(|i| y0[i] - 1.5 * x[i] as f64).collect::<Vec<_>>(), "axpy y");
}

/// bf16 as u16 storage: the top half of an f32.
fn to_bf16(v: f32) -> u16 {
    let bits = v.to_bits();
    ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16) as u16 // round to nearest even
}

fn from_bf16(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

#[test]
fn bf16_through_u16_storage() {
    let x: Vec<u16> = values(R * N, 23).iter().map(|&v| to_bf16(v)).collect();
    let mut y = vec![0u16; R * N];
    let s2 = [R as i64, N as i64];
    opkit::softmax_forward(&Tensor::typed(&x, DType::BF16, &s2).unwrap(),
                           &mut TensorMut::typed(&mut y, DType::BF16, &s2).unwrap(), None).unwrap();
    for r in 0..R {
        let row: Vec<f64> = (0..N).map(|c| from_bf16(x[r * N + c]) as f64).collect();
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        for c in 0..N {
            let want = (row[c] - m).exp() / s;
            let got = from_bf16(y[r * N + c]) as f64;
            assert!((got - want).abs() <= want * 2f64.powi(-8) + 1e-6, "bf16 softmax[{}][{}] = {}, want {}", r, c, got, want);
        }
    }
}

#[test]
fn bad_calls_are_errors_with_opkit_s_message_and_write_nothing() {
    let x = values(R * N, 24);
    // y of the wrong shape: InvalidArgument, y untouched.
    let mut y = vec![7f32; R * (N - 1)];
    let e = opkit::softmax_forward(&Tensor::new(&x, &[R as i64, N as i64]).unwrap(),
                                   &mut TensorMut::new(&mut y, &[R as i64, (N - 1) as i64]).unwrap(), None).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(e.message.contains("softmax_forward"), "{}", e.message);
    assert!(y.iter().all(|&v| v == 7.0), "a refused call wrote its output");
    assert!(e.to_string().starts_with("OPKIT_ERROR_INVALID_ARGUMENT: "), "{}", e);
    let d = opkit::last_dispatch().unwrap();
    assert_eq!((d.status, d.served_by.as_str()), (Status::InvalidArgument.code(), ""));

    // An index tensor of floats: well-formed, but no kernel takes float ids (Unsupported).
    let fl = [1.0f32; 4];
    let mut out = vec![7f32; 4 * N];
    let w = values(4 * N, 25);
    let e = opkit::embedding_forward(&Tensor::new(&w, &[4, N as i64]).unwrap(), &Tensor::new(&fl, &[4]).unwrap(),
                                     &mut TensorMut::new(&mut out, &[4, N as i64]).unwrap(), None).unwrap_err();
    assert_eq!(e.status, Status::Unsupported, "{}", e);
    assert!(e.message.contains("ids"), "{}", e.message);
    assert!(out.iter().all(|&v| v == 7.0));

    // An unknown op name.
    let e = opkit::op_resolve("no_such_op", opkit::DeviceType::Cpu).unwrap_err();
    assert_eq!(e.status, Status::NotFound);
    assert!(!e.message.is_empty());
}
