/// placeholder
enum MapPageHTML {
    static let text = """
    x
    """
}
