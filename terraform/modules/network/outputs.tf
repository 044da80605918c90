output "vpc_id" {
  description = "ID of the VPC."
  value       = aws_vpc.this.id
}

output "private_subnet_ids" {
  description = "Private subnets of the functions, the database and its proxy."
  value       = aws_subnet.private[*].id
}

output "functions_security_group_id" {
  description = "Security group of the functions."
  value       = aws_security_group.functions.id
}
