//! Device memory exhausted in the middle of a region (issue #14, item 6): a kernel has run
//! and its array is on the device when `copy!(.., to_device)` of an array larger than what is
//! left fails. The region returns `mint::Error::OutOfMemory` naming the array and the sizes,
//! the host arrays are as they were, the device memory is given back, and the next region
//! runs. Its own binary: it fills the GPU's memory.

mod common;

use ndarray::Array1;

#[mint::parallel]
fn fill_then_exhaust(
    small: &mut Array1<f32>,
    big1: &Array1<f32>,
    big2: &Array1<f32>,
) -> mint::Result<()> {
    let n = small.len();
    copy!(small, to_device);
    #[mint::r#for(tile(256))]
    for i in 0..n {
        small[i] = 2.0 * small[i] + 1.0;
    }
    copy!(big1, to_device);
    copy!(big2, to_device);
    copy!(small, from_device);
    Ok(())
}

#[mint::parallel]
fn scale(a: &mut Array1<f32>) -> mint::Result<()> {
    let n = a.len();
    copy!(a, to_device);
    #[mint::r#for(tile(256))]
    for i in 0..n {
        a[i] *= 3.0;
    }
    copy!(a, from_device);
    Ok(())
}

/// Free bytes on the device `d`.
fn free_bytes(d: mint::Device) -> usize {
    mint::with_device(d, || -> mint::Result<usize> {
        Ok(match mint::backend()? {
            mint::Backend::Cuda(g) => g.memory_info().0,
            _ => unreachable!("a CUDA device"),
        })
    })
    .unwrap()
}

#[test]
fn device_memory_exhausted_mid_region_is_an_error_and_loses_nothing() {
    let Some(d) = common::gpu() else { return };
    let free = free_bytes(d);
    // two arrays of 60% of the free memory each: the first fits, the second cannot.
    // `zeros` maps the host pages lazily, so the host needs no such memory.
    let n = (free as f64 * 0.6 / 4.0) as usize;
    let big1 = Array1::<f32>::zeros(n);
    let big2 = Array1::<f32>::zeros(n);
    let mut small = Array1::from_shape_fn(4099, |i| i as f32);
    let before = small.clone();
    let e = mint::with_device(d, || fill_then_exhaust(&mut small, &big1, &big2)).unwrap_err();
    let msg = e.to_string();
    match &e {
        mint::Error::OutOfMemory {
            array,
            requested_bytes,
            ..
        } => {
            assert_eq!(array, "big2", "{msg}");
            assert!(*requested_bytes >= n * 4, "{msg}");
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    assert!(msg.contains("big2"), "{msg}");
    assert_eq!(small, before, "host array untouched");

    // the region's device arrays were freed: memory is back and the next region runs
    let free_after = free_bytes(d);
    assert!(
        free_after as f64 > free as f64 * 0.9,
        "{free_after} bytes free after the failed region, {free} before"
    );
    let mut a = Array1::from_shape_fn(1000, |i| i as f32);
    mint::with_device(d, || scale(&mut a)).unwrap();
    assert!(a.iter().enumerate().all(|(i, &v)| v == 3.0 * i as f32));
}
