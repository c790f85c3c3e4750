/// placeholder
enum MapPageScript {
    static let text = """
    x
    """
}
