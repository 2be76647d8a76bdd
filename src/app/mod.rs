//! The application layer: what a command concludes and the files it writes, made from
//! validated inputs. The CLI above it parses arguments, shows progress, prints and
//! chooses exit statuses; the layers below compute (`stats`, `rtp`) and render
//! (`report`). Commands move here one at a time (issue 60, step 4); the keyed schemes'
//! sweep and audit folders, the crash chains' sweep folder and the verdict files of every
//! scheme's audit are the first.

pub mod chain_sweep;
pub mod keyed_audit;
pub mod keyed_sweep;
pub mod scheme_audit;
