//! What the runtime reads of a CUBIN (an ELF64 file), without a GPU: the function symbols
//! (tests and checks use them to see that a compiled or linked image really holds the kernels
//! asked for) and the stack frame sizes ptxas recorded (`stack.rs` sizes the stack with them).

/// A section header: (type, offset, size, link, entry size).
type Section = (u32, usize, usize, usize, usize);

/// The section headers of `image`, or `None` if it is not a little-endian ELF64 file.
fn sections(image: &[u8]) -> Option<Vec<Section>> {
    if image.len() < 64 || &image[..4] != b"\x7fELF" || image[4] != 2 || image[5] != 1 {
        return None;
    }
    let (shoff, shentsize, shnum) = (u64_at(image, 0x28)?, u16_at(image, 0x3a)?, u16_at(image, 0x3c)?);
    (0..shnum)
        .map(|i| {
            let at = shoff + i * shentsize;
            Some((u32_at(image, at + 4)?, u64_at(image, at + 0x18)?, u64_at(image, at + 0x20)?, u32_at(image, at + 0x28)? as usize, u64_at(image, at + 0x38)?))
        })
        .collect()
}

fn u16_at(b: &[u8], o: usize) -> Option<usize> {
    b.get(o..o + 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    b.get(o..o + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()))
}
fn u64_at(b: &[u8], o: usize) -> Option<usize> {
    b.get(o..o + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap()) as usize)
}

/// The names of the function symbols (`STT_FUNC`) in `image`'s symbol table, or `None` if
/// `image` is not a little-endian ELF64 file with one.
pub fn function_symbols(image: &[u8]) -> Option<Vec<String>> {
    const SHT_SYMTAB: u32 = 2;
    const STT_FUNC: u8 = 2;
    let sections = sections(image)?;
    let mut names = Vec::new();
    for &(kind, offset, size, link, entsize) in &sections {
        if kind != SHT_SYMTAB || entsize < 24 {
            continue;
        }
        let &(_, strtab, strsize, _, _) = sections.get(link)?;
        let strings = image.get(strtab..strtab + strsize)?;
        for sym in image.get(offset..offset + size)?.chunks_exact(entsize) {
            if sym[4] & 0xf != STT_FUNC {
                continue;
            }
            let name_at = u32::from_le_bytes(sym[..4].try_into().unwrap()) as usize;
            let name = strings.get(name_at..)?;
            let end = name.iter().position(|&b| b == 0)?;
            names.push(String::from_utf8_lossy(&name[..end]).into_owned());
        }
    }
    Some(names)
}

/// The stack frame of each function of `image` in bytes (its locals, spills and saved
/// registers, without its callees), from the `EIATTR_FRAME_SIZE` records of its `.nv.info`
/// sections; `None` if `image` is no ELF64 file or records none.
///
/// A `.nv.info` section (type `SHT_CUDA_INFO`) is a list of attributes: a format byte, an
/// attribute byte, then a 16-bit value, or for the format `EIFMT_SVAL` a 16-bit size and that
/// many bytes; `EIATTR_FRAME_SIZE`'s are a symbol index and the frame size, both 32-bit.
pub fn frame_sizes(image: &[u8]) -> Option<Vec<u32>> {
    const SHT_CUDA_INFO: u32 = 0x7000_0000;
    const EIFMT_SVAL: u8 = 4;
    const EIATTR_FRAME_SIZE: u8 = 0x11;
    let mut frames = Vec::new();
    for (kind, offset, size, _, _) in sections(image)? {
        if kind != SHT_CUDA_INFO {
            continue;
        }
        let info = image.get(offset..offset + size)?;
        let mut at = 0;
        while at + 4 <= info.len() {
            let (format, attribute) = (info[at], info[at + 1]);
            let len = if format == EIFMT_SVAL { u16_at(info, at + 2)? } else { 0 };
            if format == EIFMT_SVAL && attribute == EIATTR_FRAME_SIZE && len == 8 {
                frames.push(u32_at(info, at + 8)?);
            }
            at += 4 + len;
        }
    }
    (!frames.is_empty()).then_some(frames)
}

#[cfg(test)]
mod tests {
    use super::{frame_sizes, function_symbols};

    #[test]
    fn anything_but_elf64_has_no_symbols() {
        assert_eq!(function_symbols(b"not an ELF file at all, but long enough to have a header......"), None);
        assert_eq!(function_symbols(b"\x7fELF"), None);
        assert_eq!(frame_sizes(b"\x7fELF"), None);
    }
}
