//! What every GPU launch of a program carries, whatever the scheduler: parameters, the user's
//! buffers, the counter slots and the device status record.

use crate::gpu::device::workspace::Workspace;
use crate::contract::buffer::BufferSet;
use crate::error::Error;
use crate::contract::{CounterSet, Program};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use std::sync::Arc;

/// The program's inputs and outputs in device memory.
pub(crate) struct Inputs {
    params: CudaSlice<u8>,
    /// Which buffers have a device copy of this run's to read back: all but the read-only
    /// arrays, which the workspace keeps, and the scratch buffers. The copies themselves live
    /// in the workspace.
    writable: Vec<bool>,
    buffer_table: CudaSlice<u64>,
    counters: CudaSlice<u64>,
    counter_count: usize,
}

impl Inputs {
    /// Copies parameters and buffers to the device (read-only arrays only if the workspace
    /// does not hold them yet) and sets every counter slot to the identity of its reduction.
    pub fn upload<P: Program>(stream: &Arc<CudaStream>, ws: &mut Workspace, params: &P::Params, buffers: &P::Buffers) -> Result<Self, Error> {
        let mut param_bytes = vec![0u8; P::PARAMS_BYTES.max(1)];
        P::encode_params(params, &mut param_bytes);
        let params = stream.clone_htod(&param_bytes).map_err(Error::driver("copying the parameters"))?;
        // `struct wsdsl_buffers` lists (pointer, length) per buffer in declaration order.
        let mut writable = Vec::new();
        let mut table = Vec::new();
        for (position, b) in buffers.buffers().into_iter().enumerate() {
            let bytes = b.len() * b.elem_bytes();
            if b.scratch() {
                table.push(ws.traced(|| format!("buffer {position} of `{}` cleared (scratch)", P::NAME), bytes, |ws| ws.scratch(stream, position, bytes))?);
                writable.push(false);
            } else if let Some(array) = b.residency() {
                let uploaded = ws.holds(&array);
                let what = || format!("buffer {position} of `{}` (read-only){}", P::NAME, if uploaded { ", already on the device" } else { " uploaded" });
                table.push(ws.traced(what, bytes, |ws| ws.resident(stream, &array, b))?);
                writable.push(false);
            } else {
                table.push(ws.traced(|| format!("buffer {position} of `{}` uploaded", P::NAME), bytes, |ws| ws.copy_in(stream, position, b))?);
                writable.push(true);
            }
            table.push(b.len() as u64);
        }
        if table.is_empty() {
            table.push(0);
        }
        let buffer_table = stream.clone_htod(&table).map_err(Error::driver("copying the buffer table"))?;
        let init: Vec<u64> = <P::Counters as CounterSet>::SLOTS.iter().map(|s| s.initial_bits()).collect();
        let counter_count = init.len();
        let counters = stream
            .clone_htod(if init.is_empty() { &[0u64][..] } else { &init[..] })
            .map_err(Error::driver("copying the counters"))?;
        ws.moved.uploaded += (param_bytes.len() + 8 * (table.len() + init.len())) as u64;
        Ok(Inputs { params, writable, buffer_table, counters, counter_count })
    }

    pub fn params_ptr(&self, stream: &Arc<CudaStream>) -> u64 {
        ptr(&self.params, stream)
    }

    pub fn buffers_ptr(&self, stream: &Arc<CudaStream>) -> u64 {
        ptr(&self.buffer_table, stream)
    }

    pub fn counters_ptr(&self, stream: &Arc<CudaStream>) -> u64 {
        ptr(&self.counters, stream)
    }

    /// The counters' raw slots, with the host buffers refreshed from the device (read-only
    /// arrays cannot have changed). Decoding the slots is the caller's: a multi-GPU run
    /// merges every GPU's first.
    pub fn read_back<P: Program>(&self, stream: &Arc<CudaStream>, ws: &mut Workspace, buffers: &P::Buffers) -> Result<Vec<u64>, Error> {
        let mut bits = stream.clone_dtoh(&self.counters).map_err(Error::driver("reading the counters"))?;
        bits.truncate(self.counter_count);
        ws.moved.downloaded += 8 * bits.len() as u64;
        for (position, (b, &writable)) in buffers.buffers().into_iter().zip(&self.writable).enumerate() {
            if writable && b.len() > 0 {
                let bytes = b.len() * b.elem_bytes();
                ws.traced(|| format!("buffer {position} of `{}` copied back", P::NAME), bytes, |ws| ws.copy_out(stream, position, b))?;
            }
        }
        Ok(bits)
    }
}

/// The device address of a buffer, for launch records.
pub(crate) fn ptr<T>(slice: &CudaSlice<T>, stream: &Arc<CudaStream>) -> u64 {
    let (p, _sync) = slice.device_ptr(stream);
    p
}
