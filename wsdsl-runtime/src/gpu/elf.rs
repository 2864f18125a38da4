//! The function symbols of a CUBIN (an ELF64 file), read without a GPU: tests and checks use
//! it to see that a compiled or linked image really holds the kernels asked for.

/// The names of the function symbols (`STT_FUNC`) in `image`'s symbol table, or `None` if
/// `image` is not a little-endian ELF64 file with one.
pub fn function_symbols(image: &[u8]) -> Option<Vec<String>> {
    const SHT_SYMTAB: u32 = 2;
    const STT_FUNC: u8 = 2;
    if image.len() < 64 || &image[..4] != b"\x7fELF" || image[4] != 2 || image[5] != 1 {
        return None;
    }
    let u16_at = |o: usize| image.get(o..o + 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize);
    let u32_at = |o: usize| image.get(o..o + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()));
    let u64_at = |o: usize| image.get(o..o + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap()) as usize);
    let (shoff, shentsize, shnum) = (u64_at(0x28)?, u16_at(0x3a)?, u16_at(0x3c)?);
    let section = |i: usize| {
        let at = shoff + i * shentsize;
        // (type, offset, size, link, entry size)
        Some((u32_at(at + 4)?, u64_at(at + 0x18)?, u64_at(at + 0x20)?, u32_at(at + 0x28)? as usize, u64_at(at + 0x38)?))
    };
    let mut names = Vec::new();
    for i in 0..shnum {
        let (kind, offset, size, link, entsize) = section(i)?;
        if kind != SHT_SYMTAB || entsize < 24 {
            continue;
        }
        let (_, strtab, strsize, _, _) = section(link)?;
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

#[cfg(test)]
mod tests {
    use super::function_symbols;

    #[test]
    fn anything_but_elf64_has_no_symbols() {
        assert_eq!(function_symbols(b"not an ELF file at all, but long enough to have a header......"), None);
        assert_eq!(function_symbols(b"\x7fELF"), None);
    }
}
