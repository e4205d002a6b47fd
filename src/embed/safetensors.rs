//! Reads float tensors out of a safetensors file: an 8-byte little-endian
//! header length, a JSON header naming each tensor's dtype, shape and byte
//! range, then the raw data. Knows nothing about what the tensors mean.

use std::collections::HashMap;

use serde::Deserialize;

#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

/// The tensors of one safetensors file, still as bytes.
pub struct Tensors {
    bytes: Vec<u8>,
    start: usize,
    entries: HashMap<String, Entry>,
}

impl Tensors {
    pub fn parse(bytes: Vec<u8>) -> Result<Tensors, String> {
        let len = bytes.get(..8).ok_or("the file is shorter than its header")?;
        let len = u64::from_le_bytes(len.try_into().map_err(|_| "bad header length")?) as usize;
        let header = bytes.get(8..8usize.saturating_add(len)).ok_or("the header runs past the end of the file")?;
        let raw: HashMap<String, serde_json::Value> =
            serde_json::from_slice(header).map_err(|e| format!("the header is not JSON: {e}"))?;
        let mut entries = HashMap::new();
        for (name, value) in raw {
            if name == "__metadata__" {
                continue;
            }
            let entry: Entry = serde_json::from_value(value).map_err(|e| format!("tensor {name}: {e}"))?;
            entries.insert(name, entry);
        }
        Ok(Tensors { start: 8 + len, bytes, entries })
    }

    /// The `f32` tensor `name`, checked to have `shape`.
    pub fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        let entry = self.entries.get(name).ok_or_else(|| format!("the weights have no tensor {name}"))?;
        if entry.dtype != "F32" || entry.shape != shape {
            return Err(format!("tensor {name} is {} {:?}, expected F32 {shape:?}", entry.dtype, entry.shape));
        }
        let [from, to] = entry.data_offsets;
        let data = self
            .bytes
            .get(self.start + from..self.start + to)
            .filter(|d| d.len() == shape.iter().product::<usize>() * 4)
            .ok_or_else(|| format!("tensor {name} lies outside the file or has the wrong size"))?;
        Ok(super::from_bytes(data))
    }
}
