"""What the course compares itself against: figures published in the posts, and the designs
of the paper and the posts reproduced (Sennrich et al.'s Algorithm 1).
"""
