//! `--device`: which hardware a sweep asks for, and what it gets.

use super::{Accelerator, DeviceError, KernelOnCpu};
use std::str::FromStr;

/// The device a sweep asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The CPU sweep (the default).
    #[default]
    Cpu,
    /// A GPU, or an error naming why there is none usable.
    Gpu,
    /// A usable GPU, else the CPU (saying why).
    Auto,
    /// The device kernel run on the CPU's threads: the device path without a GPU, for
    /// testing it (several times slower than `Cpu`).
    CpuKernel,
}

impl DeviceChoice {
    /// The name `--device` takes.
    pub const fn name(self) -> &'static str {
        match self {
            DeviceChoice::Cpu => "cpu",
            DeviceChoice::Gpu => "gpu",
            DeviceChoice::Auto => "auto",
            DeviceChoice::CpuKernel => "cpu-kernel",
        }
    }
}

impl FromStr for DeviceChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "cpu" => Ok(DeviceChoice::Cpu),
            "gpu" => Ok(DeviceChoice::Gpu),
            "auto" => Ok(DeviceChoice::Auto),
            "cpu-kernel" => Ok(DeviceChoice::CpuKernel),
            other => Err(format!("unknown device {other:?}: expected cpu, gpu, auto or cpu-kernel")),
        }
    }
}

/// What a sweep runs on.
pub enum Opened {
    /// The CPU sweep; with `auto`, the reason no GPU was used.
    Cpu(Option<DeviceError>),
    /// A device.
    Device(Box<dyn Accelerator + Send>),
}

impl DeviceChoice {
    /// Opens the device asked for. `gpu` without a usable GPU is an error; `auto` then
    /// falls back to the CPU with the reason.
    pub fn open(self) -> Result<Opened, DeviceError> {
        match self {
            DeviceChoice::Cpu => Ok(Opened::Cpu(None)),
            DeviceChoice::CpuKernel => Ok(Opened::Device(Box::new(KernelOnCpu::default()))),
            DeviceChoice::Gpu => open_gpu().map(Opened::Device),
            DeviceChoice::Auto => Ok(open_gpu().map_or_else(|why| Opened::Cpu(Some(why)), Opened::Device)),
        }
    }
}

#[cfg(feature = "gpu")]
fn open_gpu() -> Result<Box<dyn Accelerator + Send>, DeviceError> {
    Ok(Box::new(super::cuda::Cuda::open()?))
}

#[cfg(not(feature = "gpu"))]
fn open_gpu() -> Result<Box<dyn Accelerator + Send>, DeviceError> {
    Err(DeviceError::Unavailable("this build has no GPU support (build it with `--features gpu`)".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_ones_are_named() {
        assert_eq!("auto".parse(), Ok(DeviceChoice::Auto));
        for choice in [DeviceChoice::Cpu, DeviceChoice::Gpu, DeviceChoice::Auto, DeviceChoice::CpuKernel] {
            assert_eq!(choice.name().parse(), Ok(choice));
        }
        let error = "tpu".parse::<DeviceChoice>().unwrap_err();
        assert!(error.contains("\"tpu\"") && error.contains("cpu, gpu, auto"), "{error}");
    }

    #[cfg(not(feature = "gpu"))]
    #[test]
    fn without_the_feature_gpu_is_refused_and_auto_falls_back_with_the_reason() {
        let Err(DeviceError::Unavailable(why)) = DeviceChoice::Gpu.open().map(|_| ()) else {
            panic!("gpu opened without the feature")
        };
        assert!(why.contains("--features gpu"), "{why}");
        match DeviceChoice::Auto.open() {
            Ok(Opened::Cpu(Some(DeviceError::Unavailable(reason)))) => assert_eq!(reason, why),
            _ => panic!("auto did not fall back to the CPU with the reason"),
        }
    }
}
