"""Reference for resource_apply_gradient_descent.pbtxt: TensorFlow.js has no variables
(ResourceApplyGradientDescent). The step is apply_gradient_descent.pbtxt's, on a resource
variable, so the reference is too."""
from apply_gradient_descent import reference  # noqa: F401
