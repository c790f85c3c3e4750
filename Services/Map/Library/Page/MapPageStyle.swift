/// placeholder
enum MapPageStyle {
    static let text = """
    x
    """
}
