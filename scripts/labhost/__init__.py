"""The lab's host side, one module per concern (issue 19); steps: the step model."""
