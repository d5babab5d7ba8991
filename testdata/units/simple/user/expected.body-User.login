F_ pub fn login(name: String) -> bool:
    # Implementation
    return true
