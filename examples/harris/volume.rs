//! Reading a NIfTI-1 volume (`.nii`, `.nii.gz`) with the `nifti` crate.

use ndarray::{Array3, Axis};
use std::path::Path;

/// A NIfTI volume as `[z, y, x]` opacities scaled linearly to [0, 1] (its lowest value
/// to 0, its highest to 1); NIfTI's first axis, the fastest in the file, becomes x. A
/// 4-D file gives its first volume.
///
/// # Errors
/// The file cannot be read or decoded; it is not a volume; it is constant.
pub fn read_nifti(path: &Path) -> Result<Array3<f32>, Box<dyn std::error::Error>> {
    use nifti::{IntoNdArray, NiftiObject, ReaderOptions};
    let obj = ReaderOptions::new()
        .read_file(path)
        .map_err(|e| format!("cannot read {} as NIfTI: {e}", path.display()))?;
    let vol = obj
        .into_volume()
        .into_ndarray::<f32>()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    // NIfTI stores x fastest; the array's axes are [x, y, z, (t, ..)]
    let mut vol = vol;
    while vol.ndim() > 3 {
        vol = vol.index_axis_move(Axis(3), 0);
    }
    if vol.ndim() != 3 {
        return Err(format!("{}: a {}-D image, not a volume", path.display(), vol.ndim()).into());
    }
    let v = vol
        .into_dimensionality::<ndarray::Ix3>()?
        .permuted_axes([2, 1, 0])
        .as_standard_layout()
        .to_owned();
    let (lo, hi) = v
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return Err(format!("{}: the volume is constant", path.display()).into());
    }
    Ok(v.mapv(|x| (x - lo) / (hi - lo)))
}
